// The socket client the pages share: live.js (a match's table,
// ws/matches/<pk>/) and chat_socket.js (a show page's or a dashboard's,
// ws/shows/<pk>/...) each open theirs with window.gsSocket(path, page).
// It connects, and after a lost connection tries again (1 s, doubling up to
// 30 s) unless page.stop(code) says the close was final. Each connect calls
// page.opened(client) and says so with a "gs:live-open" event; the chat's news come
// as "gs:chat" events; an answer (ack, chat_ack, a refusal with its id) goes
// to the message that waits for it; anything else to page.message(msg).
//
// The client: up() (the socket is there to carry a message now), carry(body,
// id, then) for a message that waits for its answer (a move, a chat message):
// false when the socket cannot carry it now (the caller posts instead), else
// then(answer) is called once: the answer, or null when none came in 8 s or
// the socket closed (post it then, with the same command id, so it is made
// once either way); tell(body) for one that waits for none; connected() (the
// socket opened and not closed since).
(function () {
  "use strict";
  if (window.gsSocket) {
    return; // loaded twice on one page: the first serves
  }
  var ANSWER_MS = 8000;

  window.gsSocket = function (path, page) {
    var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
    var socket = null;
    var open = false;
    var retry = 1000;
    var waiting = {};

    function answered(id, msg) {
      var pending = waiting[id];
      if (!pending) {
        return;
      }
      delete waiting[id];
      clearTimeout(pending.timer);
      pending.then(msg);
    }

    function up() {
      return open && socket && socket.readyState === 1;
    }

    function connect() {
      socket = new WebSocket(url);
      socket.onopen = function () {
        open = true;
        retry = 1000;
        if (page.opened) {
          page.opened(client);
        }
        document.dispatchEvent(new CustomEvent("gs:live-open"));
      };
      socket.onmessage = function (e) {
        var msg;
        try {
          msg = JSON.parse(e.data);
        } catch (err) {
          return;
        }
        if (msg.type === "ack" || msg.type === "chat_ack" || (msg.type === "refused" && msg.id)) {
          answered(msg.id, msg);
        } else if (msg.type === "chat") {
          document.dispatchEvent(new CustomEvent("gs:chat", { detail: msg }));
        } else if (page.message) {
          page.message(msg);
        }
      };
      socket.onclose = function (e) {
        open = false;
        for (var id in waiting) {
          answered(id, null); // no answer will come: the caller posts it (same command id)
        }
        if (page.stop && page.stop(e.code)) {
          return;
        }
        // lost connections: the page polls meanwhile, try again later
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 30000);
      };
    }

    var client = {
      up: up,
      connected: function () {
        return open;
      },
      carry: function (body, id, then) {
        if (!up() || !id || waiting[id]) {
          return false;
        }
        try {
          socket.send(JSON.stringify(body));
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
        if (up()) {
          socket.send(JSON.stringify(body));
        }
      },
    };
    connect();
    return client;
  };
})();
