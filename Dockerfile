# syntax=docker/dockerfile:1
# Self-hosted short links and website analytics. Build: docker build -t shortlink-server .
# Run: docker run -p 3000:3000 -v shortlink-data:/app/data shortlink-server

# Builder: every dependency, the type check (a broken tree never makes an image), then the
# JavaScript build the server runs from (bin/build.mjs: one esbuild bundle with its dependencies,
# which starts on about half the CPU of running the sources through tsx).
FROM node:20-slim AS builder
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY bin ./bin
RUN ./node_modules/.bin/tsc --noEmit -p . && npm run build

# Runtime: production dependencies only. The server runs from dist/; src/ and bin/ stay for the
# `shortlink-server` command (admin tasks through tsx, a runtime dependency).
FROM node:20-slim
ENV NODE_ENV=production \
    DATA_DIR=/app/data \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=builder /app/dist ./dist
COPY --from=builder /app/src ./src
COPY --from=builder /app/bin ./bin
# The data directory belongs to the unprivileged user that runs the server.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME /app/data
EXPOSE 3000
# No curl in slim images: node itself asks /health.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself; the server flushes its data and exits 0.
CMD ["node", "dist/main.js", "serve"]
