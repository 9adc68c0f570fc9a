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
