// The organizer's overlay preview: each change of the settings form redraws
// the framed overlay and the settings to add to a link, without a reload (the
// form still works without a script: it reloads the page with its settings).
(function () {
  "use strict";
  var form = document.querySelector(".overlay-settings-form");
  var frame = document.querySelector("iframe.overlay-preview");
  var shown = document.querySelector(".overlay-query");
  if (!form || !frame || !window.URLSearchParams) {
    return;
  }
  var base = form.getAttribute("data-preview");
  var none = shown ? shown.getAttribute("data-none") : "";

  function settings() {
    var q = new URLSearchParams();
    form.querySelectorAll("select, input").forEach(function (el) {
      if (el.name && el.name !== "kind" && el.value !== "" && el.value !== el.getAttribute("data-default")) {
        q.set(el.name, el.value);
      }
    });
    return q.toString();
  }

  function redraw() {
    var query = settings();
    var kind = form.querySelector("[name=kind]").value;
    frame.src = base.replace("/scoreboard/", "/" + encodeURIComponent(kind) + "/") + (query ? "?" + query : "");
    if (shown) {
      shown.textContent = query ? "?" + query : none;
    }
    var page = new URLSearchParams(query);
    page.set("kind", kind);
    history.replaceState(null, "", "?" + page.toString());
  }

  form.addEventListener("change", redraw);
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    redraw();
  });
})();
