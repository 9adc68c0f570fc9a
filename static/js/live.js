// Live table over a websocket: the server pushes this viewer's #table
// (whole) whenever it is newer than the one shown. On every (re)connect the
// page says which version it shows ({"since": v}) and gets what it missed.
// While the socket is down, the table's own htmx poll runs; while it is up,
// the poll is held back. A spectator's push says where its clocks stand
// ("clock": the cut, on the server's clock), so a delayed table runs its
// countdowns from the delayed moment. The socket carries the table's moves
// too (window.gsLive.send, used by table_craft.js), and the match's chat
// (window.gsLive.chat, used by chat.js: its news come as a "gs:chat" event,
// and each connect says so with "gs:live-open"), through the client
// live_socket.js makes (loaded before this).
(function () {
  "use strict";
  var script = document.currentScript;
  var pk = script && script.getAttribute("data-match");
  if (!pk || !window.WebSocket || !window.gsSocket) {
    return; // the poll does everything
  }

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

  var live = window.gsSocket("/ws/matches/" + pk + "/", {
    opened: function (client) {
      client.tell({ since: shownVersion() });
    },
    message: function (msg) {
      if (typeof msg.version === "number" && typeof msg.html === "string") {
        swap(msg.version, msg.html, msg.clock);
      }
    },
    stop: function (code) {
      if (code === 4409) {
        location.reload(); // your role in this match changed: the page as you are now
        return true;
      }
      return code === 4404 || code === 4403; // no such match, or not visible yet: the table's poll carries on
    },
  });

  // Moves over the socket (table_craft.js): {"form": the control's fields, "id":
  // its command id}; the answer is the table as the POST would give it. While
  // the socket is down (or the answer does not come) the move goes by POST,
  // with the same command id, so it is made once either way (live_socket.js).
  window.gsLive = {
    up: live.up,
    send: function (form, id, then) {
      return live.carry({ form: form, id: id }, id, then);
    },
    chat: function (chat, id, then) {
      return live.carry({ chat: chat, id: id }, id, then);
    },
    // a message that waits for no answer (the chat's catching up)
    tell: live.tell,
    replace: replace,
  };

  // the table's poll only runs while the socket is down
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (live.connected() && e.detail.elt && e.detail.elt.id === "table" && e.detail.requestConfig.verb === "get") {
      e.preventDefault();
    }
  });
})();
