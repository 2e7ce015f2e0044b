/**
 * electron-builder's beforeBuild hook (electron-builder.yml). Answering false tells it the app's
 * node_modules are handled elsewhere: it neither rebuilds native modules for Electron nor copies
 * the repository's production dependencies into the shell's app.asar, which it otherwise does when
 * the shell's own package.json (dist/kiosk/app) declares none. The shell is one esbuild bundle; the
 * runtime's node_modules travel as resources, built for Node.
 */
module.exports = async () => false;
