import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The kiosk's operator UI, served by the appliance's local API under /kiosk/ from dist/. In
 * development `npx vite` here proxies the API (and its WebSockets) to an appliance on port 8090.
 */
const appliance = process.env.KIOSK_API ?? 'http://127.0.0.1:8090';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/kiosk/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'chrome120', assetsInlineLimit: 0 },
  server: {
    proxy: {
      '/v1': { target: appliance, ws: true },
      '/api': { target: appliance },
    },
  },
});
