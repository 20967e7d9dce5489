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
# production dependencies only, `app` gets dist/ and the pruned node_modules with no
# compiler, no dev dependencies and no package manager, `warm` starts it once to fill
# Node's compile cache, and the final stage is `app` plus that cache.
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

# `app` is the final image's contents; `runtime` adds the compile cache `warm` made from them.
FROM ${NODE_IMAGE} AS app
# The final image runs node only: drop npm, npx, corepack and yarn.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
  /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && mkdir -p /etc/mcp-beaver
# NODE_COMPILE_CACHE: Node reads the V8 bytecode of each module from this folder instead
# of compiling it: a cold start of `serve` costs 10-17 % less CPU (issue 19). The
# folder is filled at build time (stage `warm`) and is read-only at run time, as the
# chart's readOnlyRootFilesystem wants: Node only reads it, and a write it tries at exit
# (for a module the warm-up did not load) fails silently. Node files the cache under the
# uid, so it serves uid 1000 only; another uid starts as fast as it would without it.
# Node checks each entry against the module's source, so a stale entry is not used.
# NODE_DISABLE_COMPILE_CACHE=1 turns it off.
# MCP_BEAVER_WARM_UP: a container is a pod's process, sent traffic once it is ready, so it
# warms its request path first (serve --warm-up; off by default outside the image).
ENV NODE_ENV=production \
  NODE_COMPILE_CACHE=/app/compile-cache \
  MCP_BEAVER_WARM_UP=500
WORKDIR /app
# Everything is owned by root and only readable by the runtime user.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Example specs (and the spec of `mcp-beaver demo`, which dist/cli/demo.js reads).
COPY specs ./specs

# The warm-up runs the image's own command as the runtime user (whose uid names the
# cache's folder), on this stage's node and paths, so every entry matches at run time.
# Node writes the entries for its owner only (0600): they are made world-readable here,
# and the runtime stage copies them in owned by root.
FROM app AS warm
COPY scripts/warm-compile-cache.mjs /tmp/warm-compile-cache.mjs
RUN mkdir -p /app/compile-cache && chown 1000:1000 /app/compile-cache
USER 1000:1000
RUN NODE_DISABLE_COMPILE_CACHE=1 node /tmp/warm-compile-cache.mjs /app/dist/cli/main.js \
  && chmod -R a+rX,go-w /app/compile-cache

FROM app AS runtime
LABEL org.opencontainers.image.title="mcp-beaver" \
  org.opencontainers.image.description="Declarative gateway: safe, typed access to an HTTP API or a Postgres database over MCP and REST" \
  org.opencontainers.image.licenses="Apache-2.0"
COPY --from=warm /app/compile-cache ./compile-cache
# The `node` user of the base image, by number so that runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080
STOPSIGNAL SIGTERM
# No HEALTHCHECK: Kubernetes ignores it and probes /healthz and /readyz itself, and a
# fixed probe would be refused by the Host check once --allowed-host is given.
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["serve", "/etc/mcp-beaver/spec.mcp.kdl", "--http", ":8080"]
