// The dashboard hears of a new dispute over its socket (ws/shows/<pk>/dashboard/,
// live.dashboard, opened by chat_socket.js: its messages come as "gs:socket"
// events): the page's title says it, a line says it to screen readers,
// a short sound plays if the moderator ticked the box (the tick is the gesture
// browsers ask before a page may play sound), and the live part is fetched at
// once (the "dispute-filed" event its hx-trigger listens to). Without the
// socket the 2 s refresh still shows the dispute. A reported chat message
// brings the reports' panel afresh (unless the reader is writing in it).
(function () {
  "use strict";
  var box = document.querySelector(".dash-alerts[data-live-socket]");
  if (!box) {
    return;
  }
  var title = document.title;
  var said = box.querySelector(".dispute-alert");
  var sound = box.querySelector("input[name=dispute-sound]");
  var audio = null;
  var KEY = "dashboard-dispute-sound";

  function beep() {
    if (!audio || !sound || !sound.checked) {
      return;
    }
    try {
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.value = 0.15;
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.25);
    } catch (e) {
      // no sound: the title and the line still say it
    }
  }

  function told(open) {
    var words = box.getAttribute("data-new");
    document.title = "(" + open + ") " + words + " · " + title;
    if (said) {
      said.textContent = words;
    }
    beep();
    document.body.dispatchEvent(new CustomEvent("dispute-filed"));
  }

  function seen() {
    if (document.visibilityState === "visible") {
      document.title = title;
    }
  }

  if (sound) {
    sound.checked = window.localStorage && localStorage.getItem(KEY) === "1";
    sound.addEventListener("change", function () {
      if (window.localStorage) {
        localStorage.setItem(KEY, sound.checked ? "1" : "0");
      }
      var Ctx = window.AudioContext || window.webkitAudioContext;
      if (sound.checked && Ctx && !audio) {
        audio = new Ctx(); // made on the click: allowed to sound later
      }
    });
  }
  document.addEventListener("visibilitychange", seen);
  window.addEventListener("focus", function () {
    document.title = title;
  });

  function reports() {
    var old = document.getElementById("reports");
    var active = document.activeElement;
    if (!old || !window.DOMParser || (active && active !== document.body && old.contains(active))) {
      return;
    }
    fetch(location.href, { credentials: "same-origin" })
      .then(function (r) {
        return r.ok ? r.text() : null;
      })
      .then(function (html) {
        var fresh = html && new DOMParser().parseFromString(html, "text/html").getElementById("reports");
        if (fresh) {
          old.replaceWith(document.importNode(fresh, true));
        }
      })
      .catch(function () {});
  }

  document.addEventListener("gs:socket", function (e) {
    var msg = e.detail || {};
    if (msg.type === "dispute_filed") {
      told(msg.open);
    } else if (msg.type === "chat_reported") {
      reports();
    }
  });
})();
