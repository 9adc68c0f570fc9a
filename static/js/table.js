// A refused action (422) comes back as the table with the rule's words
// beside the control: swap it in like any other answer.
document.addEventListener("htmx:beforeSwap", function (e) {
  if (e.detail.xhr.status === 422 || e.detail.xhr.status === 409 || e.detail.xhr.status === 403) {
    e.detail.shouldSwap = true;
    e.detail.isError = false;
  }
});
