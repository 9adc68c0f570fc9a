// A page that is not open yet (a match behind its spectator delay): counts
// down to data-opens-at (epoch seconds, the server's clock in
// data-server-now) and reloads itself when it opens; without a time, it
// looks again every data-reload-s seconds.
(function () {
  "use strict";
  var el = document.querySelector("[data-opens-at]");
  if (!el) return;
  var holder = el.closest("[data-server-now]");
  var skew = holder ? parseFloat(holder.getAttribute("data-server-now")) - Date.now() / 1000 : 0;
  var at = parseFloat(el.getAttribute("data-opens-at"));
  if (isNaN(at)) {
    var again = parseFloat(el.getAttribute("data-reload-s")) || 10;
    setTimeout(function () { location.reload(); }, again * 1000);
    return;
  }
  var words = el.getAttribute("data-words") || "opens in {time}";
  var timer = null;
  // opened after the moment already (clocks a hair apart): look again a little later
  var pause = at - (Date.now() / 1000 + skew) <= 0 ? 1500 : 300;
  function tick() {
    var left = at - (Date.now() / 1000 + skew);
    if (left <= 0) {
      clearInterval(timer);
      el.textContent = el.getAttribute("data-opening") || "…";
      // a hair after the moment, so the server surely has something to show
      setTimeout(function () { location.reload(); }, pause);
      return;
    }
    var whole = Math.ceil(left);
    var m = Math.floor(whole / 60);
    var s = whole % 60;
    el.textContent = words.replace("{time}", m ? m + ":" + (s < 10 ? "0" : "") + s : s + " s");
  }
  tick();
  timer = setInterval(tick, 250);
})();
