#!/bin/bash
# The edge-kiosk deb's postinst. electron-builder fills in the executable's and the product's
# names where this file says so with a dollar and braces; any other name written that way would
# stop the build, so the script's own variables are written $name.
set -e

APP_DIR='/opt/${sanitizedProductName}'
EXECUTABLE='${executable}'
PACKAGING="$APP_DIR/resources/packaging"
SETTINGS=/etc/edge-appliance/appliance.env

# What electron-builder's own postinst does, which a custom one replaces: the command on PATH,
# Chromium's sandbox helper (setuid only where user namespaces are off), the desktop database and,
# on Ubuntu 24.04 and later, the AppArmor profile that lets Electron use user namespaces.
if type update-alternatives >/dev/null 2>&1; then
  update-alternatives --install "/usr/bin/$EXECUTABLE" "$EXECUTABLE" "$APP_DIR/$EXECUTABLE" 100 ||
    ln -sf "$APP_DIR/$EXECUTABLE" "/usr/bin/$EXECUTABLE"
else
  ln -sf "$APP_DIR/$EXECUTABLE" "/usr/bin/$EXECUTABLE"
fi
if [[ -L /proc/self/ns/user ]] && unshare --user true 2>/dev/null; then
  chmod 0755 "$APP_DIR/chrome-sandbox" || true
else
  chmod 4755 "$APP_DIR/chrome-sandbox" || true
fi
if hash update-desktop-database 2>/dev/null; then
  update-desktop-database /usr/share/applications || true
fi
if apparmor_status --enabled >/dev/null 2>&1 &&
  apparmor_parser --skip-kernel-load --debug "$APP_DIR/resources/apparmor-profile" >/dev/null 2>&1; then
  cp -f "$APP_DIR/resources/apparmor-profile" "/etc/apparmor.d/$EXECUTABLE"
  if ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; }; then
    apparmor_parser --replace --write-cache --skip-read-cache "/etc/apparmor.d/$EXECUTABLE" || true
  fi
fi

# The appliance runtime: its own system user, its settings (kept across upgrades, readable by the
# service only: they hold the cloud credential), its service, and the kiosk's autostart entry.
if ! getent passwd edge-appliance >/dev/null; then
  useradd --system --user-group --home-dir /var/lib/edge-appliance --no-create-home \
    --shell /usr/sbin/nologin edge-appliance
fi
install -d -m 0750 -o root -g edge-appliance /etc/edge-appliance
if [ ! -e "$SETTINGS" ]; then
  install -m 0640 -o root -g edge-appliance "$PACKAGING/appliance.env" "$SETTINGS"
fi
install -m 0644 "$PACKAGING/edge-appliance.service" /lib/systemd/system/edge-appliance.service
install -d /etc/xdg/autostart
install -m 0644 "$PACKAGING/edge-kiosk-autostart.desktop" /etc/xdg/autostart/edge-kiosk.desktop

if [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  systemctl enable edge-appliance.service
  # A fresh install waits for its settings; once they name the store, (re)start on the new files.
  if grep -q '^TENANT_ID=.' "$SETTINGS" && grep -q '^LOCATION_ID=.' "$SETTINGS"; then
    systemctl restart edge-appliance.service || true
  else
    echo "edge-kiosk: set TENANT_ID and LOCATION_ID in $SETTINGS, then: systemctl start edge-appliance"
  fi
fi
