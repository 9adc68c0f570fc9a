// A new scheduling form offers the browser's own time zone: a time-zone select
// marked data-browser-zone (the server marks it only on a form shown new) is
// set to the zone the browser reports, when the list has it. Without
// JavaScript, or with a zone the list lacks, the server's default stands.
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (e) {
    return;
  }
  if (!zone) {
    return;
  }
  document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
    for (var i = 0; i < select.options.length; i += 1) {
      if (select.options[i].value === zone) {
        select.value = zone;
        select.removeAttribute("data-browser-zone"); // once: a later choice is the person's
        return;
      }
    }
  });
})();
