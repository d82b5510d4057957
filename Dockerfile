# The bintel API image: `bintel serve` on Node 24 (LTS). It serves the data it is given and writes
# nothing at start; the demo (data, keys, credits) is the separate `bintel up --no-serve` command
# (docker compose --profile demo). See docs/operations.md#docker.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# BINTEL_HOME (export files, demo data) is a volume; the unprivileged `node` user owns it and the
# esbuild cache of the data commands.
RUN mkdir -p /data node_modules/.cache && chown -R node:node /data node_modules/.cache
ENV NODE_ENV=production \
    BINTEL_HOME=/data \
    BINTEL_HOST=0.0.0.0 \
    PORT=3000
USER node
EXPOSE 3000
# Readiness: 200 once Elasticsearch and Redis answer and every live alias exists.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/bintel.js", "serve"]
