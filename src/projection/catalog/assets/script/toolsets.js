/** The tools view's toolsets: the one this page shows, or links to each from the whole list. */
/* global byId, el, inToolset, isObject, listingPath, toolsetName */
/* exported showToolset, showToolsetHeader, showToolsets */

// --- The toolsets: the one this page shows, or links to each from the whole list. ---

const toolsetsSection = byId('toolsets');
const toolsetList = byId('toolset-list');
const toolsetCount = byId('toolset-count');
const toolsetDescribe = byId('toolset-describe');

/** A toolset page's header, from the address at once; its `describe` once GET /api says it. */
function showToolsetHeader() {
  if (!inToolset) return;
  byId('toolset-name').textContent = toolsetName;
  byId('toolset-id').hidden = false;
  byId('rest-listing').textContent = `GET ${listingPath}`;
  document.title = document.title.replace(/tool catalog$/, `toolset ${toolsetName}`);
}

function showToolset(toolset) {
  const text =
    isObject(toolset) && typeof toolset.description === 'string' ? toolset.description : '';
  toolsetDescribe.textContent = text;
  toolsetDescribe.hidden = text === '';
}

/** Links to each toolset's page, with its describe and MCP path; hidden without any. */
function showToolsets(toolsets) {
  const listed = Array.isArray(toolsets)
    ? toolsets.filter((t) => isObject(t) && typeof t.name === 'string')
    : [];
  toolsetList.replaceChildren(
    ...listed.map((t) => {
      const li = el('li', 'toolset');
      const a = el('a');
      a.href = `/?toolset=${encodeURIComponent(t.name)}`;
      a.append(el('code', '', t.name));
      li.append(a);
      if (typeof t.path === 'string') li.append(' ', el('code', 'toolset-path', t.path));
      if (typeof t.description === 'string') li.append(el('p', 'prose', t.description));
      return li;
    }),
  );
  toolsetCount.textContent = listed.length > 0 ? String(listed.length) : '';
  toolsetsSection.hidden = listed.length === 0;
}
