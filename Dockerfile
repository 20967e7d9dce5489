# mcp-beaver container image.
#
#   docker build -t mcp-beaver .
#   docker run --rm -p 8080:8080 -e GITHUB_TOKEN -e MCP_API_KEYS \
#     -v "$PWD/my.mcp.kdl:/etc/mcp-beaver/spec.mcp.kdl:ro" mcp-beaver
#
# The spec is mounted at /etc/mcp-beaver/spec.mcp.kdl (in Kubernetes: the chart's
# ConfigMap); upstream credentials and API keys come from the environment variables the
# spec names. Binding :8080 reaches beyond loopback, so the spec needs an `access` block
# (or pass --insecure-no-auth when something in front authenticates callers).
#
# Stages: `build` compiles TypeScript with the dev dependencies, `deps` installs the
# production dependencies only, and the final stage gets dist/ and the pruned
# node_modules with no compiler, no dev dependencies and no package manager.
# The base image is pinned by exact tag; it is the Node 24 LTS release the conformance
# suite already runs on (test/conformance/package.json). Bump all three stages together.

ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the compiler needs none (esbuild's postinstall is for tsx/vite).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="mcp-beaver" \
  org.opencontainers.image.description="Declarative gateway: safe, typed access to an HTTP API or a Postgres database over MCP and REST" \
  org.opencontainers.image.licenses="Apache-2.0"
# The final image runs node only: drop npm, npx, corepack and yarn.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
  /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && mkdir -p /etc/mcp-beaver
ENV NODE_ENV=production
WORKDIR /app
# Everything is owned by root and only readable by the runtime user.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Example specs (and the spec of `mcp-beaver demo`, which dist/cli/demo.js reads).
COPY specs ./specs
# The `node` user of the base image, by number so that runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080
STOPSIGNAL SIGTERM
# No HEALTHCHECK: Kubernetes ignores it and probes /healthz and /readyz itself, and a
# fixed probe would be refused by the Host check once --allowed-host is given.
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["serve", "/etc/mcp-beaver/spec.mcp.kdl", "--http", ":8080"]
