# One image for both services; the command picks which one runs:
#   docker run IMAGE                               the gateway (default)
#   docker run IMAGE node --enable-source-maps --max-semi-space-size=32 --no-memory-reducer dist/renderer.js   the renderer
#   (the options of scripts/service-node-args.mjs, checked by test/deploy.test.ts)
# Node 26 is the active LTS line; the suite also runs on it (`npm test`).
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY shared ./shared
COPY gateway ./gateway
COPY renderer ./renderer
COPY scripts ./scripts
COPY public ./public
RUN npm run build

FROM node:26-trixie-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:26-trixie-slim
# REQUIRE_RENDER_SECRET: a container without RENDER_SECRET (or RENDER_SECRET_FILE) exits with code 2.
# NODE_ENV=production: the gateway exits with code 2 without CRAFT_API_URL, or with a SITE_URL on this machine or
# over http, unless DEMO_SITE=true (a demo; docs/operations.md, "First production deploy").
ENV NODE_ENV=production \
    REQUIRE_RENDER_SECRET=true \
    LOG_FORMAT=json \
    HOST=0.0.0.0 \
    RENDERER_HOST=0.0.0.0
WORKDIR /app
# Owned by root and only readable by the service user: the process cannot rewrite its own code.
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY public ./public
COPY scripts/healthcheck.sh ./scripts/healthcheck.sh
# The deploy's readiness check, run from this image on the stack's scrape network (docs/operations.md).
COPY scripts/readiness.mjs ./scripts/readiness.mjs
COPY gateway/embedded-cms/content ./gateway/embedded-cms/content
COPY gateway/embedded-cms/assets ./gateway/embedded-cms/assets
USER node
EXPOSE 3000 3001
# Works for either service without being told which: a container runs one, and
# whichever of the two ports answers its /healthz is that one.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "scripts/healthcheck.sh"]
# node itself is process 1: docker stop's SIGTERM reaches the service, which
# drains and exits; no npm in between (no update check, no logs of its own).
CMD ["node", "--enable-source-maps", "--max-semi-space-size=32", "--no-memory-reducer", "dist/gateway.js"]
