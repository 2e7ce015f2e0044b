#!/bin/bash
# The edge-kiosk deb's postrm (its first argument says why: remove, purge, upgrade, ...).
# electron-builder fills in the names written with a dollar and braces, as in after-install.sh.
# On an upgrade the new package's postinst has put everything in place again: nothing to undo.
case "$1" in
  remove | purge) ;;
  *) exit 0 ;;
esac

APP_DIR='/opt/${sanitizedProductName}'
EXECUTABLE='${executable}'

if [ -d /run/systemd/system ]; then
  systemctl disable --now edge-appliance.service 2>/dev/null || true
fi
rm -f /lib/systemd/system/edge-appliance.service /etc/xdg/autostart/edge-kiosk.desktop
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi

# What electron-builder's own postrm does: the command on PATH and the AppArmor profile.
if type update-alternatives >/dev/null 2>&1; then
  update-alternatives --remove "$EXECUTABLE" "$APP_DIR/$EXECUTABLE" 2>/dev/null || true
else
  rm -f "/usr/bin/$EXECUTABLE"
fi
if [ -f "/etc/apparmor.d/$EXECUTABLE" ]; then
  if apparmor_status --enabled >/dev/null 2>&1 && ! { [ -x /usr/bin/ischroot ] && /usr/bin/ischroot; }; then
    apparmor_parser --remove "/etc/apparmor.d/$EXECUTABLE" || true
  fi
  rm -f "/etc/apparmor.d/$EXECUTABLE"
fi

# Purging removes the settings (they hold the cloud credential) but keeps the store's data in
# /var/lib/edge-appliance: its replica may hold orders the cloud has not received yet.
if [ "$1" = purge ]; then
  rm -rf /etc/edge-appliance
fi
exit 0
