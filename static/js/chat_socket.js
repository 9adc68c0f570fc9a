// The socket of a page that holds no match socket (the show page: its chat
// rooms, ws/shows/<pk>/; the moderators' dashboard: its staff room, its
// reports and disputes, ws/shows/<pk>/dashboard/), named by the element with
// data-live-socket. It carries the chat as live.js does on a table
// (window.gsLive.chat and .tell for chat.js; the news as "gs:chat" events,
// each connect as "gs:live-open"); any other message is a "gs:socket" event
// (dashboard_alerts.js). While it is down chat.js asks every few seconds
// (window.gsLive.up() says whether it is up).
(function () {
  "use strict";
  var holder = document.querySelector("[data-live-socket]");
  if (!holder || !window.WebSocket || window.gsLive) {
    return;
  }
  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + holder.getAttribute("data-live-socket");
  var socket = null;
  var open = false;
  var retry = 1000;
  var waiting = {};
  var ANSWER_MS = 8000;

  function answered(id, msg) {
    var pending = waiting[id];
    if (!pending) {
      return;
    }
    delete waiting[id];
    clearTimeout(pending.timer);
    pending.then(msg);
  }

  function connect() {
    socket = new WebSocket(url);
    socket.onopen = function () {
      open = true;
      retry = 1000;
      document.dispatchEvent(new CustomEvent("gs:live-open"));
    };
    socket.onmessage = function (e) {
      var msg;
      try {
        msg = JSON.parse(e.data);
      } catch (err) {
        return;
      }
      if (msg.type === "chat_ack" || (msg.type === "refused" && msg.id)) {
        answered(msg.id, msg);
      } else if (msg.type === "chat") {
        document.dispatchEvent(new CustomEvent("gs:chat", { detail: msg }));
      } else {
        document.dispatchEvent(new CustomEvent("gs:socket", { detail: msg }));
      }
    };
    socket.onclose = function (e) {
      open = false;
      for (var id in waiting) {
        answered(id, null); // no answer will come: chat.js posts it (same command id)
      }
      if (e.code === 4403 || e.code === 4404 || e.code === 4401) {
        return; // nothing for this reader here: chat.js asks now and then
      }
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }

  window.gsLive = {
    up: function () {
      return open && socket && socket.readyState === 1;
    },
    chat: function (chat, id, then) {
      if (!window.gsLive.up() || !id || waiting[id]) {
        return false;
      }
      try {
        socket.send(JSON.stringify({ chat: chat, id: id }));
      } catch (err) {
        return false;
      }
      waiting[id] = {
        then: then,
        timer: setTimeout(function () {
          answered(id, null);
        }, ANSWER_MS),
      };
      return true;
    },
    tell: function (body) {
      if (window.gsLive.up()) {
        socket.send(JSON.stringify(body));
      }
    },
  };
  connect();
})();
