// Without the manual's own Mermaid (a build on a machine without npm), the
// theme would fetch Mermaid from a CDN: this stands in for it and shows each
// diagram's text, so the manual never loads anything from elsewhere.
if (typeof window.mermaid === "undefined") {
  window.mermaid = {
    initialize() {},
    async render(id, text) {
      const escaped = text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
      return { svg: `<pre style="white-space: pre-wrap">${escaped}</pre>` };
    },
  };
}
