# The publishing service (and, with another command, the diary MCP server).
FROM node:20-bookworm-slim
WORKDIR /app
# better-sqlite3 builds from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY bin ./bin
COPY portal ./portal
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN node bin/build-portal.mjs && node bin/build-server.mjs
ENV SITES_LISTEN_ADDR=0.0.0.0:8080 SITES_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
CMD ["node", "--max-semi-space-size=1", "--expose-gc", "bin/sites.mjs", "serve"]
