// Times in the viewer's own time zone: every <time data-local datetime="ISO">
// is rewritten with the browser's zone and the page's language (no library).
(function () {
  "use strict";
  function show(root) {
    var lang = document.documentElement.lang || undefined;
    var fmt;
    try {
      fmt = new Intl.DateTimeFormat(lang, {
        weekday: "long", year: "numeric", month: "long", day: "numeric",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short",
      });
    } catch (e) {
      return;
    }
    root.querySelectorAll("time[data-local]").forEach(function (el) {
      var at = new Date(el.getAttribute("datetime"));
      if (!isNaN(at)) { el.textContent = fmt.format(at); el.removeAttribute("data-local"); }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { show(document); });
  document.addEventListener("htmx:afterSwap", function (e) { show(e.target); });
})();
