// The table's "file a dispute" link points at the move the player sees: its
// version follows the table's (data-version) each time the table is swapped
// in (a socket push or a poll), not the one the page was loaded with.
(function () {
  "use strict";
  function follow() {
    var table = document.getElementById("table");
    var link = document.querySelector(".dispute-link a");
    if (!table || !link) {
      return;
    }
    var v = table.getAttribute("data-version");
    if (!v || !/^\d+$/.test(v)) {
      return;
    }
    var url = new URL(link.getAttribute("href"), window.location.href);
    url.searchParams.set("version", v);
    link.setAttribute("href", url.pathname + url.search);
  }
  document.addEventListener("htmx:afterSwap", follow);
  document.addEventListener("DOMContentLoaded", follow);
})();
