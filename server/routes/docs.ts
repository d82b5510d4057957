/**
 * GET /v1/openapi.json (the document, built once, at its first request, from the definitions the server
 * validates with) and GET /v1/docs (Swagger UI from the installed swagger-ui-dist package, its
 * assets under /v1/docs/...). No key: mounted beside health. The page loads nothing from the
 * internet: no CDN, no fonts, no validator badge (validatorUrl null).
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFound } from '../errors.ts';
import { pathParameter } from '../openapi/params.ts';
import { PUBLIC, route, type Route } from './route.ts';

/** The files of swagger-ui-dist the page uses, with their media types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>bintel API</title>
  <link rel="stylesheet" href="/v1/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/v1/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/v1/docs/swagger-ui-bundle.js"></script>
  <script src="/v1/docs/init.js"></script>
</body>
</html>
`;

// Base layout without the standalone preset: no top bar fetching other URLs.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** The folder of the installed swagger-ui-dist. */
const assetDir = (): string => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

let served: string | undefined;
let dir: string | undefined;

/** The public documentation routes. */
export const docsRoutes = (): Route[] => [
  route({
    method: 'get', path: '/v1/openapi.json', tag: 'docs', summary: 'This OpenAPI 3.1 document', access: PUBLIC, success: { media: 'application/json' },
    handle: async ({ ctx }) => {
      ctx.type = 'application/json';
      // The document is an assembly of every route, these included: loaded at the first request,
      // not imported (a static import would close a circle: document → operations → docs routes).
      ctx.body = served ??= JSON.stringify((await import('../openapi/document.ts')).sharedDocument());
    },
  }),
  route({
    method: 'get', path: '/v1/docs', tag: 'docs', summary: 'Interactive documentation (Swagger UI, served locally)', access: PUBLIC, success: { media: 'text/html' },
    handle: ({ ctx }) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
    },
  }),
  route({
    method: 'get', path: '/v1/docs/{file}', tag: 'docs', summary: 'An asset of the documentation page', access: PUBLIC, params: [pathParameter('file', 'The asset file name.')], success: { media: 'asset' }, errors: [404],
    handle: ({ ctx }) => {
      const { file } = ctx.params;
      if (file === 'init.js') {
        ctx.type = 'text/javascript; charset=utf-8';
        ctx.body = INIT;
        return;
      }
      const type = ASSETS[file];
      if (!type) throw notFound('documentation file', 'file');
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = createReadStream(join((dir ??= assetDir()), file));
    },
  }),
];
