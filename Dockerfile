# One image for both services; the command picks which one runs:
#   docker run IMAGE npm run start:gateway   (default)
#   docker run IMAGE npm run start:renderer
FROM node:20-bookworm-slim AS build
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

FROM node:20-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    RENDERER_HOST=0.0.0.0
WORKDIR /app
COPY --from=production-deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node public ./public
COPY --chown=node:node gateway/embedded-cms/content ./gateway/embedded-cms/content
COPY --chown=node:node gateway/embedded-cms/assets ./gateway/embedded-cms/assets
USER node
EXPOSE 3000 3001
# Works for either service without being told which: a container runs one, and
# whichever of the two ports answers its /healthz is that one.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "const ports=[process.env.PORT||3000,process.env.RENDERER_PORT||3001];Promise.any(ports.map(p=>fetch('http://127.0.0.1:'+p+'/healthz').then(r=>{if(!r.ok)throw r.status}))).then(()=>process.exit(0),()=>process.exit(1))"
# npm's script execs node, so docker stop's SIGTERM reaches the service itself (it drains, then exits).
CMD ["npm", "run", "start:gateway"]
