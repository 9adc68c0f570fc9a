// Live countdowns: the deadline comes from the server (epoch seconds in
// data-deadline, the moment the clocks stand at in data-server-now on the
// same update: now, or the cut of a delayed table); the page counts down
// locally from there and corrects itself on every refresh. A replay's step
// (a table with data-at) shows its clocks as they stood, still.
(function () {
  "use strict";
  var skew = 0; // the clocks' moment minus this browser's clock, in seconds

  function readSkew(root) {
    var el = root.querySelector("[data-server-now]");
    if (el) {
      skew = parseFloat(el.getAttribute("data-server-now")) - Date.now() / 1000;
    }
  }

  // the page's words, in its language (base.html's body), else English
  function words(name, fallback) {
    return (document.body && document.body.getAttribute(name)) || fallback;
  }

  function still(el) {
    // a replay's step: the moment it shows, not running
    var step = el.closest("[data-at]");
    var at = step && step.querySelector("[data-server-now]");
    return at ? parseFloat(at.getAttribute("data-server-now")) : null;
  }

  function tick() {
    var now = Date.now() / 1000 + skew;
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      if (el.closest(".clock-bar")) {
        return; // a clock bar runs its own words (clock_bar.js)
      }
      var stepAt = still(el);
      var left = parseFloat(el.getAttribute("data-deadline")) - (stepAt === null ? now : stepAt);
      if (left <= 0) {
        el.textContent = words("data-time-up", "time is up");
        el.classList.add("late");
        return;
      }
      el.classList.remove("late");
      var m = Math.floor(left / 60);
      var s = Math.floor(left % 60);
      var time = m ? m + ":" + (s < 10 ? "0" : "") + s : s + " s";
      el.textContent = words("data-time-left", "{time} left").replace("{time}", time);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    readSkew(document);
    tick();
    setInterval(tick, 250);
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    readSkew(e.target);
    tick();
  });
})();
