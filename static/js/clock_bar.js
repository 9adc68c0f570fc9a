// Clock bars (templates/_clock_bar.html): each bar runs from its own data, so
// a table, TV, the board or an overlay needs nothing else. data-clock-now is
// the moment the clocks stand at when the bar was drawn (the server's now, or
// the cut of a delayed spectator's table); from the moment the bar arrives
// (a page load, an htmx swap, a socket's push) the bar counts on from there.
// A replay's step or a paused match (data-clock-still) stands still. The
// words stay as text beside the bar (role="timer"), for screen readers too.
(function () {
  "use strict";
  var arrived = new WeakMap(); // bar -> this browser's clock when it was first seen

  function num(el, name) {
    return parseFloat(el.getAttribute(name)) || 0;
  }

  function time(s) {
    s = Math.max(Math.floor(s), 0);
    var m = Math.floor(s / 60);
    s = s % 60;
    return m ? m + ":" + (s < 10 ? "0" : "") + s : s + " s";
  }

  function draw(bar, wall) {
    if (!arrived.has(bar)) {
      arrived.set(bar, wall);
    }
    var now = num(bar, "data-clock-now");
    if (!bar.hasAttribute("data-clock-still")) {
      now += wall - arrived.get(bar);
    }
    var left = num(bar, "data-clock-deadline") - now;
    var span = Math.max(num(bar, "data-clock-span"), left, 1);
    var reserve = num(bar, "data-clock-reserve");
    var fill = bar.querySelector(".clock-fill");
    var text = bar.querySelector(".deadline");
    if (fill) {
      // the CSP forbids style attributes, not the style object a script sets
      fill.style.transform = "scaleX(" + Math.min(Math.max(left / span, 0), 1).toFixed(4) + ")";
    }
    bar.classList.toggle("up", left <= 0);
    bar.classList.toggle("on-reserve", left > 0 && left <= reserve);
    bar.classList.toggle("low", left > 0 && left <= 10);
    if (!text) {
      return;
    }
    var words;
    if (left <= 0) {
      words = bar.getAttribute("data-words-up");
    } else if (left <= reserve) {
      words = bar.getAttribute("data-words-on-reserve").replace("{time}", time(left));
    } else if (reserve > 0) {
      words = bar
        .getAttribute("data-words-then-reserve")
        .replace("{time}", time(left - reserve))
        .replace("{reserve}", time(reserve));
    } else {
      words = bar.getAttribute("data-words-left").replace("{time}", time(left));
    }
    text.classList.toggle("late", left <= 0);
    if (text.textContent !== words) {
      text.textContent = words;
    }
  }

  function tick() {
    var wall = Date.now() / 1000;
    document.querySelectorAll(".clock-bar[data-clock-deadline]").forEach(function (bar) {
      draw(bar, wall);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tick();
    setInterval(tick, 250);
  });
  document.addEventListener("htmx:afterSwap", tick);
})();
