// The socket of a page that holds no match socket (the show page: its chat
// rooms, ws/shows/<pk>/; the moderators' dashboard: its staff room, its
// reports and disputes, ws/shows/<pk>/dashboard/), named by the element with
// data-live-socket, through the client live_socket.js makes (loaded before
// this). It carries the chat as live.js does on a table (window.gsLive.chat
// and .tell for chat.js; the news as "gs:chat" events, each connect as
// "gs:live-open"); any other message is a "gs:socket" event
// (dashboard_alerts.js). While it is down chat.js asks every few seconds
// (window.gsLive.up() says whether it is up).
(function () {
  "use strict";
  var holder = document.querySelector("[data-live-socket]");
  if (!holder || !window.WebSocket || window.gsLive || !window.gsSocket) {
    return;
  }
  var live = window.gsSocket(holder.getAttribute("data-live-socket"), {
    message: function (msg) {
      document.dispatchEvent(new CustomEvent("gs:socket", { detail: msg }));
    },
    stop: function (code) {
      return code === 4403 || code === 4404 || code === 4401; // nothing for this reader here: chat.js asks now and then
    },
  });

  window.gsLive = {
    up: live.up,
    chat: function (chat, id, then) {
      return live.carry({ chat: chat, id: id }, id, then);
    },
    tell: live.tell,
  };
})();
