// The dashboard hears of a new dispute over its socket (ws/shows/<pk>/dashboard/,
// live.dashboard): the page's title says it, a line says it to screen readers,
// a short sound plays if the moderator ticked the box (the tick is the gesture
// browsers ask before a page may play sound), and the live part is fetched at
// once (the "dispute-filed" event its hx-trigger listens to). Without the
// socket the 2 s refresh still shows the dispute.
(function () {
  "use strict";
  var box = document.querySelector("[data-dashboard-socket]");
  if (!box || !window.WebSocket) {
    return;
  }
  var title = document.title;
  var said = box.querySelector(".dispute-alert");
  var sound = box.querySelector("input[name=dispute-sound]");
  var audio = null;
  var retry = 1000;
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

  function parsed(text) {
    try {
      return JSON.parse(text);
    } catch (err) {
      return null;
    }
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + box.getAttribute("data-dashboard-socket"));
    socket.onopen = function () {
      retry = 1000;
    };
    socket.onmessage = function (e) {
      var msg = parsed(e.data);
      if (msg && msg.type === "dispute_filed") {
        told(msg.open);
      }
    };
    socket.onclose = function (e) {
      if (e.code === 4403) {
        return; // not a moderator of this show: nothing to hear
      }
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }
  connect();
})();
