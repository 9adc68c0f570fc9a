// Live table over a websocket: the server pushes this viewer's #table
// (whole) whenever it is newer than the one shown. On every (re)connect the
// page says which version it shows ({"since": v}) and gets what it missed.
// While the socket is down, the table's own htmx poll runs; while it is up,
// the poll is held back. A spectator's push says where its clocks stand
// ("clock": the cut, on the server's clock), so a delayed table runs its
// countdowns from the delayed moment. The socket carries the table's moves
// too (window.gsLive.send, used by table_craft.js), and the match's chat
// (window.gsLive.chat, used by chat.js: its news come as a "gs:chat" event,
// and each connect says so with "gs:live-open").
(function () {
  "use strict";
  var script = document.currentScript;
  var pk = script && script.getAttribute("data-match");
  if (!pk || !window.WebSocket) {
    return; // the poll does everything
  }
  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/matches/" + pk + "/";
  var socket = null;
  var open = false;
  var retry = 1000;

  function table() {
    return document.getElementById("table");
  }

  function shownVersion() {
    var el = table();
    return el ? parseInt(el.getAttribute("data-version") || "0", 10) : 0;
  }

  function swap(version, html, clock) {
    var old = table();
    if (!old || old.hasAttribute("data-at") || version <= shownVersion()) {
      return; // a replay being browsed, or nothing newer
    }
    if (old.hasAttribute("data-moving")) {
      // a move is out (table_craft.js): its answer comes first, then this if still newer
      setTimeout(function () {
        swap(version, html, clock);
      }, 250);
      return;
    }
    replace(html, clock);
  }

  // the table from html, whatever its version (a move's answer: a refusal
  // comes back as the same version with its words beside the control)
  function replace(html, clock) {
    var old = table();
    if (!old) {
      return;
    }
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.firstElementChild;
    if (!fresh || fresh.id !== "table") {
      return;
    }
    var now = fresh.querySelector("[data-server-now]");
    if (now && typeof clock === "number") {
      now.setAttribute("data-server-now", String(clock));
    }
    old.replaceWith(fresh);
    if (window.htmx) {
      htmx.process(fresh);
      htmx.trigger(fresh, "htmx:afterSwap"); // the countdowns re-read the server's clock
    }
  }

  function connect() {
    socket = new WebSocket(url);
    socket.onopen = function () {
      open = true;
      retry = 1000;
      socket.send(JSON.stringify({ since: shownVersion() }));
      document.dispatchEvent(new CustomEvent("gs:live-open"));
    };
    socket.onmessage = function (e) {
      var msg;
      try {
        msg = JSON.parse(e.data);
      } catch (err) {
        return;
      }
      if (msg.type === "ack" || msg.type === "refused" || msg.type === "chat_ack") {
        answered(msg.id, msg);
        return;
      }
      if (msg.type === "chat") {
        document.dispatchEvent(new CustomEvent("gs:chat", { detail: msg }));
        return;
      }
      if (typeof msg.version === "number" && typeof msg.html === "string") {
        swap(msg.version, msg.html, msg.clock);
      }
    };
    socket.onclose = function (e) {
      open = false;
      for (var id in waiting) {
        answered(id, null); // no answer will come: the move goes by POST (same command id)
      }
      if (e.code === 4409) {
        location.reload(); // your role in this match changed: the page as you are now
        return;
      }
      if (e.code === 4404 || e.code === 4403) {
        return; // no such match, or not visible yet: the table's poll carries on
      }
      // lost connections: poll meanwhile, try again later
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }

  // Moves over the socket (table_craft.js): {"form": the control's fields, "id":
  // its command id}; the answer is the table as the POST would give it. While
  // the socket is down (or the answer does not come) the move goes by POST,
  // with the same command id, so it is made once either way.
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

  // a message that waits for its answer (a move, a chat message): false when
  // the socket cannot carry it now (the caller posts instead); else then(answer)
  // is called once: the answer, or null (post it then)
  function carry(body, id, then) {
    if (!open || !socket || socket.readyState !== 1 || !id || waiting[id]) {
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
  }

  window.gsLive = {
    up: function () {
      return open && socket && socket.readyState === 1;
    },
    send: function (form, id, then) {
      return carry({ form: form, id: id }, id, then);
    },
    chat: function (chat, id, then) {
      return carry({ chat: chat, id: id }, id, then);
    },
    // a message that waits for no answer (the chat's catching up)
    tell: function (body) {
      if (open && socket && socket.readyState === 1) {
        socket.send(JSON.stringify(body));
      }
    },
    replace: replace,
  };

  // the table's poll only runs while the socket is down
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (open && e.detail.elt && e.detail.elt.id === "table" && e.detail.requestConfig.verb === "get") {
      e.preventDefault();
    }
  });

  connect();
})();
