// The chat panel (templates/chat/_panel.html): each room's list, its form,
// the older messages on request, and its news: over the page's socket (the
// table's, live.js; the show's or the dashboard's, chat_socket.js:
// window.gsLive.chat, the "gs:chat" events), asking every few seconds only
// while it is down. Every text is set as text (never as
// HTML), so a message's markup and links are shown as the characters they are.
// A moderator's links are made links (http and https only). Moderators
// hide a message (with the reason they wrote) or time its author out (5 min,
// 1 h, the show; of this room or, ticked, of all the show's rooms); anyone logged in blocks an author (their messages go, here and later)
// or reports a message to the moderators (once, with an optional reason).
(function () {
  "use strict";
  var panel = document.querySelector("aside.chat");
  if (!panel || !window.fetch) {
    return;
  }
  var me = panel.getAttribute("data-me");
  var POLL_MS = 5000;

  function rooms() {
    return Array.prototype.slice.call(panel.querySelectorAll(".chat-room"));
  }

  function roomNamed(name) {
    return rooms().filter(function (r) {
      return r.getAttribute("data-room") === name;
    })[0];
  }

  function list(room) {
    return room.querySelector(".chat-list");
  }

  function ids(room) {
    return Array.prototype.map.call(list(room).querySelectorAll("li[data-id]"), function (li) {
      return parseInt(li.getAttribute("data-id"), 10);
    });
  }

  function newId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return ("0" + b.toString(16)).slice(-2);
      })
      .join("");
  }

  function csrf() {
    var field = panel.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function say(room, words) {
    var p = room.querySelector(".chat-refusal");
    p.textContent = words || "";
    p.hidden = !words;
  }

  function button(label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "secondary chat-action";
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  // the buttons a message gets for this reader
  function decorate(room, li) {
    var author = li.getAttribute("data-author-id");
    if (!me || author === me || li.querySelector(".chat-action")) {
      return;
    }
    if (room.hasAttribute("data-moderate")) {
      li.appendChild(button(panel.getAttribute("data-hide-label"), function () {
        hide(room, li);
      }));
      [["5m", "data-timeout-label"], ["1h", "data-timeout-hour-label"], ["show", "data-timeout-show-label"]].forEach(function (t) {
        li.appendChild(button(panel.getAttribute(t[1]), function () {
          var wide = room.querySelector(".chat-wide");
          var fields = { user: author, length: t[0], scope: wide && wide.checked ? "show" : "room" };
          post(room, room.getAttribute("data-timeout-url"), fields, function (answer) {
            room.querySelector(".chat-status").textContent = answer.message || "";
          });
        }));
      });
    }
    li.appendChild(button(panel.getAttribute("data-report-label"), function () {
      report(room, li);
    }));
    li.appendChild(button(panel.getAttribute("data-block-label"), function () {
      post(room, panel.getAttribute("data-block-url"), { user: author }, function () {
        panel.querySelectorAll('li[data-author-id="' + author + '"]').forEach(function (el) {
          el.remove();
        });
      });
    }));
  }

  // a message's text, as text; a moderator's http(s) links as links (as
  // chat/present.py does on the server): never HTML, so nothing runs
  var LINK = /https?:\/\/[^\s<>"'`]+/gi;
  function fill(span, text, staff) {
    if (!staff) {
      span.textContent = text;
      return;
    }
    var at = 0;
    text.replace(LINK, function (found, start) {
      var url = found.replace(/[.,;:!?)\]}]+$/, "");
      var ok = false;
      try {
        var parsed = new URL(url);
        ok = (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
      } catch (e) {
        ok = false;
      }
      if (!ok) {
        return found;
      }
      span.appendChild(document.createTextNode(text.slice(at, start)));
      var a = document.createElement("a");
      a.href = url;
      a.rel = "nofollow noopener ugc";
      a.textContent = url;
      span.appendChild(a);
      at = start + url.length;
      return found;
    });
    span.appendChild(document.createTextNode(text.slice(at)));
  }

  function item(room, m) {
    var li = document.createElement("li");
    li.className = "chat-message";
    li.setAttribute("data-id", String(m.id));
    li.setAttribute("data-author-id", String(m.author_id));
    var who = document.createElement("b");
    who.className = "chat-author";
    who.textContent = m.author;
    var when = document.createElement("time");
    when.setAttribute("datetime", m.at);
    var at = new Date(m.at);
    when.textContent = ("0" + at.getHours()).slice(-2) + ":" + ("0" + at.getMinutes()).slice(-2);
    var text = document.createElement("span");
    text.className = "chat-text";
    fill(text, m.text, m.staff === true);
    li.appendChild(who);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(when);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(text);
    if (m.mentions_me === true) {
      li.classList.add("chat-mention");
      var note = document.createElement("em");
      note.className = "chat-mention-note";
      note.textContent = panel.getAttribute("data-mention-label");
      li.appendChild(document.createTextNode(" "));
      li.appendChild(note);
    }
    decorate(room, li);
    return li;
  }

  // messages into a room's list, in id order, each once
  function add(room, messages) {
    var ol = list(room);
    var have = ids(room);
    (messages || []).forEach(function (m) {
      if (typeof m.id !== "number" || have.indexOf(m.id) >= 0) {
        return;
      }
      var li = item(room, m);
      var after = Array.prototype.filter.call(ol.children, function (el) {
        return parseInt(el.getAttribute("data-id"), 10) > m.id;
      })[0];
      ol.insertBefore(li, after || null);
      have.push(m.id);
    });
  }

  function drop(ids) {
    (ids || []).forEach(function (id) {
      var li = panel.querySelector('li[data-id="' + Number(id) + '"]');
      if (li) {
        li.remove();
      }
    });
  }

  function post(room, url, fields, then) {
    var body = new FormData();
    body.append("csrfmiddlewaretoken", csrf());
    body.append("command_id", newId());
    Object.keys(fields).forEach(function (k) {
      body.append(k, fields[k]);
    });
    return fetch(url, { method: "POST", body: body, headers: { "X-Requested-With": "fetch" }, credentials: "same-origin" })
      .then(function (r) {
        return r.json().then(function (answer) {
          if (!r.ok) {
            say(room, answer.message);
            return null;
          }
          say(room, "");
          if (then) {
            then(answer);
          }
          return answer;
        });
      })
      .catch(function () {
        say(room, panel.getAttribute("data-failed"));
      });
  }

  function report(room, li) {
    var reason = room.querySelector(".chat-report-reason");
    var fields = { message: li.getAttribute("data-id"), reason: reason ? reason.value : "" };
    post(room, room.getAttribute("data-report-url"), fields, function (answer) {
      room.querySelector(".chat-status").textContent = answer.message || "";
      if (reason) {
        reason.value = "";
      }
    });
  }

  function hide(room, li) {
    var reason = room.querySelector(".chat-reason");
    if (!reason || !reason.value.trim()) {
      say(room, panel.getAttribute("data-reason-missing"));
      if (reason) {
        reason.focus();
      }
      return;
    }
    post(room, room.getAttribute("data-hide-url"), { message: li.getAttribute("data-id"), reason: reason.value }, function () {
      li.remove();
    });
  }

  function sent(room, form, answer) {
    if (answer.type === "refused") {
      say(room, answer.message);
      return;
    }
    say(room, "");
    add(room, [answer.message]);
    form.querySelector("input[name=text]").value = "";
    form.querySelector("input[name=command_id]").value = newId();
  }

  function submit(room, form) {
    var text = form.querySelector("input[name=text]").value;
    var id = form.querySelector("input[name=command_id]").value;
    var byPost = function () {
      post(room, room.getAttribute("data-post-url"), { text: text, command_id: id }, function (answer) {
        sent(room, form, { type: "chat_ack", message: answer.message });
      });
    };
    var chat = { room: room.getAttribute("data-room"), text: text };
    var carried = window.gsLive && window.gsLive.chat && window.gsLive.chat(chat, id, function (answer) {
      if (answer === null) {
        byPost(); // the same command id: written once either way
      } else {
        sent(room, form, answer);
      }
    });
    if (!carried) {
      byPost();
    }
  }

  function fetchRoom(room, query) {
    return fetch(room.getAttribute("data-messages-url") + "?" + query, {
      headers: { "X-Requested-With": "fetch" },
      credentials: "same-origin",
    }).then(function (r) {
      return r.ok ? r.json() : null;
    });
  }

  function catchUp(room) {
    var have = ids(room);
    var last = have.length ? Math.max.apply(null, have) : 0;
    var first = have.length ? Math.min.apply(null, have) : 0;
    fetchRoom(room, "after=" + last + (first ? "&from=" + first : "")).then(function (answer) {
      if (answer) {
        add(room, answer.messages);
        drop(answer.hidden);
      }
    }).catch(function () {});
  }

  rooms().forEach(function (room) {
    list(room).querySelectorAll("li[data-id]").forEach(function (li) {
      decorate(room, li);
    });
    var form = room.querySelector(".chat-form");
    if (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        submit(room, form);
      });
    }
    var older = room.querySelector(".chat-older");
    older.addEventListener("click", function () {
      var have = ids(room);
      var first = have.length ? Math.min.apply(null, have) : 0;
      fetchRoom(room, first ? "before=" + first : "").then(function (answer) {
        if (answer && answer.messages.length) {
          add(room, answer.messages);
        } else {
          older.disabled = true;
        }
      }).catch(function () {});
    });
  });

  document.addEventListener("gs:chat", function (e) {
    var msg = e.detail || {};
    var room = roomNamed(msg.room);
    if (room) {
      add(room, msg.messages);
    }
    drop(msg.hidden);
  });

  // on every (re)connect of the match socket: what was missed meanwhile
  document.addEventListener("gs:live-open", function () {
    var since = {};
    rooms().forEach(function (room) {
      var have = ids(room);
      since[room.getAttribute("data-room")] = have.length ? Math.max.apply(null, have) : 0;
    });
    window.gsLive.tell({ chat: { since: since } });
  });

  // the news come over the page's socket; while it is down (or where the
  // page has none) the rooms are asked every few seconds
  setInterval(function () {
    var up = window.gsLive && window.gsLive.up && window.gsLive.up();
    if (!up && !document.hidden) {
      rooms().forEach(catchUp);
    }
  }, POLL_MS);
})();
