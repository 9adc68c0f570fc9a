// A refused action (422) comes back as the table with the rule's words
// beside the control: swap it in like any other answer.
document.addEventListener("htmx:beforeSwap", function (e) {
  if (e.detail.xhr.status === 422 || e.detail.xhr.status === 409 || e.detail.xhr.status === 403) {
    e.detail.shouldSwap = true;
    e.detail.isError = false;
  }
});

// A slider's number beside it follows it (no inline handler: the site's CSP allows none).
document.addEventListener("input", function (e) {
  var slider = e.target;
  if (slider.matches && slider.matches("input[type=range][data-shows-value]")) {
    slider.nextElementSibling.value = slider.value;
  }
});

// The resign button's confirmation stays open while the table is redrawn
// (a poll, a push, a move's answer) until the player closes it.
(function () {
  var open = false;
  document.addEventListener(
    "toggle",
    function (e) {
      if (e.target.matches && e.target.matches("#table details.resign")) {
        open = e.target.open;
      }
    },
    true
  );
  var table = document.getElementById("table");
  if (!table || !table.parentNode || !window.MutationObserver) {
    return;
  }
  new MutationObserver(function () {
    var details = document.querySelector("#table details.resign");
    if (details && open && !details.open) {
      details.open = true;
    }
  }).observe(table.parentNode, { childList: true });
})();
