// The API docs' page (drf-spectacular's template has no lang attribute): the
// language this script's tag names, set from a file since the CSP allows no inline script.
document.documentElement.lang = document.currentScript.dataset.lang || "en";
