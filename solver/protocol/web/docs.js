// The API page's script (docs.html): a file of its own, since the pages' Content-Security-Policy runs no inline script.
"use strict";
// Renders the OpenAPI description of this server; nothing is fetched but it.
const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const typeOf = (s) => (Array.isArray(s.type) ? s.type.join(" | ") : s.type || (s.const !== undefined ? JSON.stringify(s.const) : "any"));
function fieldsTable(schema) {
  const props = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  const rows = Object.entries(props).map(([name, s]) => {
    const extra = [s.enum ? `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}` : "",
                   s.minimum !== undefined ? `at least ${s.minimum}` : ""].filter(Boolean).join("; ");
    return `<tr><td><code>${esc(name)}</code>${required.has(name) ? ' <span class="req" title="required">*</span>' : ""}</td>` +
      `<td><code>${esc(typeOf(s))}</code></td><td>${esc(s.description)}${extra ? ` <em>(${esc(extra)})</em>` : ""}</td></tr>`;
  });
  if (!rows.length) return "<p>No fields.</p>";
  return `<table><thead><tr><th>field</th><th>type</th><th>meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}
fetch("/openapi.json").then((r) => r.json()).then((doc) => {
  document.getElementById("title").textContent = `${doc.info.title} — version ${doc.info.version}`;
  document.getElementById("desc").textContent = doc.info.description;
  const toc = document.getElementById("toc");
  const ops = document.getElementById("ops");
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [verb, op] of Object.entries(item)) {
      const id = op.operationId || path;
      toc.insertAdjacentHTML("beforeend", `<li><a href="#${esc(id)}">${esc(path)}</a></li>`);
      const body = op.requestBody && op.requestBody.content && op.requestBody.content["application/json"];
      let schema = body && body.schema;
      const example = body && body.example;
      let fields = "";
      if (schema && schema.oneOf) fields = `<p>A whole request: one of the commands below, with <code>cmd</code>.</p>`;
      else if (schema) fields = fieldsTable(schema);
      const def = op.responses && op.responses.default;
      ops.insertAdjacentHTML("beforeend", `<section class="op" id="${esc(id)}">
        <h2><span class="verb ${verb}">${verb.toUpperCase()}</span><code>${esc(path)}</code></h2>
        <p>${esc(op.summary)}</p>${fields}
        ${example && Object.keys(example).length ? `<h3>Example body</h3><pre>${esc(JSON.stringify(example, null, 1))}</pre>` : ""}
        <p><small>200: <code>{"id", "ok": true, "cmd", "result"}</code>. ${def ? esc(def.description) : ""}</small></p>
      </section>`);
    }
  }
}).catch((err) => { document.getElementById("desc").textContent = `Could not read /openapi.json: ${err}`; });
