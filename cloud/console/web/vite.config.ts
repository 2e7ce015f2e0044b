import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The fleet console, served by the cloud gateway under /console/ from dist/. In development
 * `npx vite` here proxies the API (and the console feed's WebSocket) to a cloud on port 8080.
 */
const cloud = process.env.CONSOLE_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'chrome120', assetsInlineLimit: 0 },
  server: {
    proxy: {
      '/v1': { target: cloud },
      '/api': { target: cloud, ws: true },
    },
  },
});
