import { CATALOG_TOOL_STYLE } from './catalog-tool-style.js';

/** The catalog page's icon, served as /catalog.svg (so no browser asks for /favicon.ico). */
export const CATALOG_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#1f5fbf"/>
<path d="M9 10h14M9 16h14M9 22h9" stroke="#fff" stroke-width="3" stroke-linecap="round"/>
</svg>
`;

/**
 * The catalog page's stylesheet, served as /catalog.css: system fonts, light and dark.
 * The page's frame and controls are here; the tool list and cards in catalog-tool-style.ts.
 */
export const CATALOG_STYLE = String.raw`:root {
  color-scheme: light dark;
  --bg: #f6f7f9;
  --panel: #ffffff;
  --text: #1c2330;
  --muted: #5b6575;
  --border: #d9dee6;
  --accent: #1f5fbf;
  --accent-text: #ffffff;
  --code-bg: #f0f2f5;
  --ok: #1d7a3a;
  --error: #b3261e;
  --green-bg: #e3f4e8;
  --green-text: #17602d;
  --red-bg: #fbe4e2;
  --red-text: #8f1d16;
  --blue-bg: #e3ecfa;
  --blue-text: #1d4c93;
  --grey-bg: #eceef2;
  --grey-text: #414a59;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace;
}

@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c;
    --panel: #1c2027;
    --text: #e4e7ec;
    --muted: #9aa3b2;
    --border: #323843;
    --accent: #5b9cf5;
    --accent-text: #0b1220;
    --code-bg: #252a33;
    --ok: #6fcf8e;
    --error: #f28b82;
    --green-bg: #1f3a28;
    --green-text: #9be0b0;
    --red-bg: #472220;
    --red-text: #f6b1aa;
    --blue-bg: #1e2f4a;
    --blue-text: #a9c8f5;
    --grey-bg: #2b3039;
    --grey-text: #c3c9d3;
  }
}

* {
  box-sizing: border-box;
}

html {
  -webkit-text-size-adjust: 100%;
}

body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Liberation Sans', sans-serif;
}

.wrap {
  max-width: 880px;
  margin: 0 auto;
  padding: 0 20px;
}

.page-header {
  background: var(--panel);
  border-bottom: 1px solid var(--border);
  padding: 22px 0 16px;
  margin-bottom: 24px;
}

h1 {
  font-size: 1.6rem;
  line-height: 1.25;
  margin: 0 0 4px;
}

h2 {
  font-size: 1.15rem;
  margin: 0 0 12px;
}

h3 {
  font-size: 1.05rem;
  margin: 0;
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  gap: 4px 10px;
}

.server-id {
  margin: 0;
  color: var(--muted);
}

.version {
  margin-left: 6px;
}

code,
pre,
textarea,
#mcp-url {
  font-family: var(--mono);
  font-size: 0.88rem;
}

code {
  background: var(--code-bg);
  border-radius: 4px;
  padding: 1px 5px;
}

pre code {
  background: none;
  padding: 0;
  border-radius: 0;
}

.panel,
.tool {
  background: var(--panel);
  border: 1px solid var(--border);
  border-radius: 10px;
  padding: 16px 18px;
  margin-bottom: 20px;
}

.prose {
  white-space: pre-line;
  overflow-wrap: anywhere;
  margin: 8px 0;
}

.hint {
  color: var(--muted);
  font-size: 0.88rem;
  margin: 6px 0 12px;
}

.hint:empty {
  display: none;
}

label {
  display: block;
  font-weight: 600;
  margin: 10px 0 6px;
}

input[type='text'],
input[type='password'],
textarea {
  width: 100%;
  color: var(--text);
  background: var(--bg);
  border: 1px solid var(--border);
  border-radius: 6px;
  padding: 8px 10px;
}

textarea {
  resize: vertical;
  min-height: 4.5em;
}

input:focus-visible,
textarea:focus-visible,
button:focus-visible,
summary:focus-visible,
a:focus-visible {
  outline: 2px solid var(--accent);
  outline-offset: 2px;
}

.copy-row {
  display: flex;
  gap: 8px;
}

.copy-row input {
  flex: 1;
  min-width: 0;
}

button {
  font: inherit;
  font-weight: 600;
  color: var(--accent-text);
  background: var(--accent);
  border: 1px solid var(--accent);
  border-radius: 6px;
  padding: 6px 16px;
  cursor: pointer;
}

button:disabled {
  opacity: 0.6;
  cursor: progress;
}

#forget-token {
  color: var(--accent);
  background: transparent;
}

a {
  color: var(--accent);
}

.count {
  color: var(--muted);
  font-weight: 400;
  font-size: 0.95rem;
  margin-left: 4px;
}
${CATALOG_TOOL_STYLE}`;
