// The dashboard's live part is fetched again every 2 s (hx-trigger), but not
// while the moderator is in it: a focused field keeps what is being typed, and
// an answer already on its way when the field took the focus is dropped.
// (An htmx trigger filter, [..], would be evaluated as a string: the CSP refuses that.)
function moderatorIsIn(part) {
  return part.hasAttribute("data-poll-unless-focused") && part.contains(document.activeElement);
}
document.addEventListener("htmx:beforeRequest", function (e) {
  if (moderatorIsIn(e.detail.elt)) e.preventDefault();
});
document.addEventListener("htmx:beforeSwap", function (e) {
  if (moderatorIsIn(e.detail.elt)) e.detail.shouldSwap = false;
});
