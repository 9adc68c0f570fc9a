// Parts of a page that bring themselves up to date: every element with
// data-refresh="<seconds>" and an id is replaced by the element of the same
// id in the page fetched again (one fetch for all of them, at the shortest
// period), unless the reader is busy in it: anything in it focused, or a
// field changed. A fresh form's new command id alone is no change.
// Countdowns and local times in a fresh part are redone as after an htmx swap.
(function () {
  "use strict";
  var parts = document.querySelectorAll("[data-refresh][id]");
  if (!parts.length || !window.fetch || !window.DOMParser) return;
  var period = Infinity;
  parts.forEach(function (el) {
    period = Math.min(period, parseFloat(el.getAttribute("data-refresh")) || 5);
  });
  period = Math.max(2, period) * 1000;

  // a part whose fields the reader touched is left alone until the page is left
  document.addEventListener("input", function (e) {
    var part = e.target.closest && e.target.closest("[data-refresh]");
    if (part) part.setAttribute("data-busy", "");
  });

  function busy(el) {
    var active = document.activeElement;
    var inside = active && active !== document.body && el.contains(active);
    return inside || el.hasAttribute("data-busy");
  }

  function bare(html) {
    return html.replace(/name="command_id" value="[^"]*"/g, "");
  }

  function apply(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    document.querySelectorAll("[data-refresh][id]").forEach(function (old) {
      var next = fresh.getElementById(old.id);
      if (!next || busy(old) || bare(next.innerHTML) === bare(old.innerHTML)) return;
      var adopted = document.importNode(next, true);
      old.replaceWith(adopted);
      if (window.htmx) htmx.process(adopted);
      adopted.dispatchEvent(new CustomEvent("htmx:afterSwap", { bubbles: true }));
    });
  }

  function refresh() {
    if (document.hidden) {
      setTimeout(refresh, period);
      return;
    }
    fetch(location.href, { credentials: "same-origin", headers: { "X-Refresh": "1" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html) apply(html); })
      .catch(function () {})
      .then(function () { setTimeout(refresh, period); });
  }
  setTimeout(refresh, period);
})();
