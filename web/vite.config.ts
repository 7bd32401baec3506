import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is built into dist/web and served by the server itself (src/modules/console).
// `npm run console:dev` serves it with hot reload, sending API calls to a server on port 3000.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every browser the console supports loads modules natively; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
    // Inlined images become data: URLs; the CSP allows them for images only.
    assetsInlineLimit: 4096,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
