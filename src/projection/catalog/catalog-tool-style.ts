/** Styles of the tool list and its cards: badges, schemas, try-it forms and results. */
export const CATALOG_TOOL_STYLE = String.raw`.toc {
  list-style: none;
  display: flex;
  flex-wrap: wrap;
  gap: 6px 8px;
  padding: 0;
  margin: 0 0 16px;
}

.toc a {
  text-decoration: none;
}

.toc a:hover code {
  text-decoration: underline;
}

.tool-header {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
}

.tool-name {
  font-size: 0.95rem;
  font-weight: 600;
}

.tool-title {
  font-weight: 500;
}

.badges {
  list-style: none;
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  padding: 0;
  margin: 0;
}

.badge {
  font-size: 0.75rem;
  font-weight: 600;
  letter-spacing: 0.02em;
  border-radius: 999px;
  padding: 2px 10px;
  cursor: help;
  background: var(--grey-bg);
  color: var(--grey-text);
}

.badge-read-only {
  background: var(--green-bg);
  color: var(--green-text);
}

.badge-destructive {
  background: var(--red-bg);
  color: var(--red-text);
}

.badge-idempotent {
  background: var(--blue-bg);
  color: var(--blue-text);
}

.notice {
  background: var(--panel);
  border: 1px dashed var(--border);
  border-radius: 10px;
  padding: 14px 18px;
  margin: 0 0 20px;
  color: var(--muted);
  overflow-wrap: anywhere;
}

.notice[hidden] {
  display: none;
}

.notice.error {
  border: 1px solid var(--error);
  border-left-width: 4px;
  color: var(--error);
}

.scopes {
  color: var(--muted);
  font-size: 0.88rem;
  margin: 6px 0;
}

.schema {
  margin: 10px 0;
}

.schema summary {
  cursor: pointer;
  color: var(--accent);
  font-weight: 600;
}

pre {
  background: var(--code-bg);
  border: 1px solid var(--border);
  border-radius: 6px;
  padding: 10px 12px;
  margin: 8px 0 0;
  overflow: auto;
  max-height: 420px;
}

.try {
  border-top: 1px solid var(--border);
  margin-top: 12px;
  padding-top: 2px;
}

.actions {
  display: flex;
  align-items: center;
  gap: 12px;
  margin-top: 8px;
}

.call-status {
  font-size: 0.9rem;
  font-family: var(--mono);
}

.call-status.ok {
  color: var(--ok);
}

.call-status.error {
  color: var(--error);
}

.call-status.pending {
  color: var(--muted);
}

.envelope.ok {
  border-left: 4px solid var(--ok);
}

.envelope.error {
  border-left: 4px solid var(--error);
}

.page-footer {
  color: var(--muted);
  font-size: 0.85rem;
  padding-bottom: 24px;
}

@media (max-width: 560px) {
  .copy-row {
    flex-direction: column;
  }
}
`;
