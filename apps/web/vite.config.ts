import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

/*
 * Hashed file names under /assets/ are what lets the server cache them for a year (immutable); index.html is
 * the only file served by its own name, always revalidated. No inline script is emitted (the module preload
 * helper lives in the entry chunk), so the pages run under a Content-Security-Policy without 'unsafe-inline'.
 * Every asset is also written compressed beside itself (`.br`, `.gz`) at build time, once and at the highest
 * levels, so that the server sends the smaller file without compressing on any request.
 */
export default defineConfig({
  plugins: [react(), compression({ algorithms: ['brotliCompress', 'gzip'] })],
  base: '/',
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1000,
  },
  server: {
    proxy: { '/v1': 'http://localhost:8080' },
  },
});
