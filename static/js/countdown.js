// Live countdowns: the deadline comes from the server (epoch seconds in
// data-deadline, the server's clock in data-server-now on the same update);
// the page counts down locally and corrects itself on every refresh.
(function () {
  "use strict";
  var skew = 0; // server clock minus this browser's clock, in seconds

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

  function tick() {
    var now = Date.now() / 1000 + skew;
    document.querySelectorAll("[data-deadline]").forEach(function (el) {
      var left = parseFloat(el.getAttribute("data-deadline")) - now;
      if (left <= 0) {
        el.textContent = words("data-time-up", "time is up");
        el.classList.add("late");
        return;
      }
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
