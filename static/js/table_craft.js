// Table craft: the cards of your hand are the buttons (a click or keys 1-9
// pick one, Enter confirms), focus stays on the table when it is swapped in
// after a move, the history box follows the latest move, and your turn shows
// in the tab's title (with an optional sound, off until you turn it on).
(function () {
  "use strict";
  var SOUND_KEY = "gs-turn-sound";
  var baseTitle = document.title;
  var focusInTable = false;
  var wasYourTurn = null;

  function table() {
    return document.getElementById("table");
  }

  function controlForm(key) {
    return document.getElementById("ctl-" + key);
  }

  function firstField(form) {
    return form.querySelector("select, input:not([type=hidden]), .choices button, button");
  }

  // A card: submit what it says alone, or choose its control and go there.
  function pickCard(card) {
    var form = controlForm(card.getAttribute("data-control"));
    if (!form) {
      return;
    }
    var field = card.getAttribute("data-field");
    if (field) {
      var value = card.getAttribute("data-value");
      var buttons = form.querySelectorAll("button[name='" + field + "']");
      for (var i = 0; i < buttons.length; i++) {
        if (buttons[i].value === value) {
          var chosen = {};
          chosen[field] = value;
          sendMove(form, chosen);
          return;
        }
      }
      var select = form.querySelector("select[name='" + field + "']");
      if (select) {
        select.value = value;
      }
    }
    var inputs = form.querySelectorAll("select, input:not([type=hidden]), .choices button");
    if (!inputs.length) {
      form.requestSubmit();
      return;
    }
    var choices = form.querySelectorAll(".choices button");
    if (inputs.length === choices.length && choices.length === 1) {
      choices[0].click(); // one field, one choice: nothing to ask
      return;
    }
    var t = table();
    t.querySelectorAll(".chosen").forEach(function (el) {
      el.classList.remove("chosen");
    });
    card.classList.add("chosen");
    form.classList.add("chosen");
    var first = firstField(form);
    if (first) {
      first.focus();
      first.scrollIntoView({ block: "nearest" });
    }
  }

  document.addEventListener("click", function (e) {
    var card = e.target.closest && e.target.closest("#table button.card.pick");
    if (card) {
      e.preventDefault();
      pickCard(card);
    }
  });

  function typing(el) {
    if (!el) {
      return false;
    }
    if (el.tagName === "TEXTAREA") {
      return true;
    }
    return el.tagName === "INPUT" && !/^(button|submit|checkbox|radio|hidden)$/.test(el.type);
  }

  document.addEventListener("keydown", function (e) {
    var t = table();
    if (!t || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) {
      return;
    }
    if (/^[1-9]$/.test(e.key)) {
      var card = t.querySelector("button.card.pick[data-key='" + e.key + "']");
      if (card) {
        e.preventDefault();
        card.focus();
        pickCard(card);
      }
      return;
    }
    if (e.key === "Enter" && e.target.tagName === "SELECT") {
      var form = e.target.form;
      if (form && t.contains(form)) {
        e.preventDefault();
        form.requestSubmit();
      }
    }
  });

  document.addEventListener("focusin", function (e) {
    var t = table();
    focusInTable = !!(t && t.contains(e.target));
  });

  function followHistory(t) {
    var box = t.querySelector(".history-scroll");
    if (box) {
      box.scrollTop = box.scrollHeight;
    }
  }

  function soundOn() {
    try {
      return window.localStorage.getItem(SOUND_KEY) === "1";
    } catch (err) {
      return false;
    }
  }

  function chime() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) {
      return;
    }
    try {
      var ctx = new Ctx();
      var osc = ctx.createOscillator();
      var gain = ctx.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, ctx.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.4);
      osc.connect(gain).connect(ctx.destination);
      osc.start();
      osc.stop(ctx.currentTime + 0.4);
    } catch (err) {
      // no sound then
    }
  }

  function showTurn(t) {
    var yours = !!(t && t.hasAttribute("data-your-turn"));
    var alert = t && t.getAttribute("data-turn-title");
    document.title = yours && alert ? "● " + alert + " — " + baseTitle : baseTitle;
    if (yours && wasYourTurn === false && soundOn()) {
      chime();
    }
    wasYourTurn = yours;
  }

  function refocus(t) {
    var active = document.activeElement;
    if (!focusInTable || (active && active !== document.body && document.contains(active))) {
      return;
    }
    var target = t.querySelector("button.card.pick") || t.querySelector(".controls button, .controls select") || t;
    target.focus({ preventScroll: true });
    focusInTable = true;
  }

  function settle() {
    var t = table();
    if (!t) {
      return;
    }
    followHistory(t);
    showTurn(t);
    refocus(t);
  }

  // A move goes out once, through htmx, from the table shown when it was
  // chosen: a form swapped in a moment ago is not bound by htmx yet (it binds
  // on settle) and a bound one would be sent by htmx as well, so every move
  // is sent here. While it is out, the table is not replaced by a refresh
  // (its poll waits, a poll already out is not swapped in, live.js holds
  // its push): the move's answer is the table that comes next.
  var moving = null;

  function sendMove(form, chosen) {
    if (!window.htmx || moving) {
      return; // one move at a time: the answer to the first brings the next table
    }
    var t = table();
    moving = form;
    if (t) {
      t.setAttribute("data-moving", "");
    }
    var done = function () {
      if (moving === form) {
        moving = null;
      }
      var now = table();
      if (now) {
        now.removeAttribute("data-moving");
      }
    };
    // over the table's socket when it is open (live.js), else (or without an
    // answer) the POST: the same fields and command id, the same answer shown
    var fields = formFields(form, chosen);
    var post = function () {
      // the command id the socket carried, whatever the form holds by now: a
      // move made whose answer was lost is answered as made, not refused
      var values = {};
      for (var name in chosen || {}) {
        values[name] = chosen[name];
      }
      if (fields.command_id) {
        values.command_id = fields.command_id;
      }
      htmx
        .ajax("POST", form.getAttribute("hx-post"), {
          source: form,
          target: "#table",
          swap: "outerHTML",
          values: values,
        })
        .then(done, done);
    };
    var sent =
      window.gsLive &&
      window.gsLive.send(fields, fields.command_id, function (answer) {
        if (answer && typeof answer.html === "string") {
          done();
          window.gsLive.replace(answer.html);
        } else {
          post();
        }
      });
    if (!sent) {
      post();
    }
  }

  function formFields(form, chosen) {
    var fields = {};
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken" && typeof value === "string") {
        fields[name] = value; // the socket was opened from this site's page: no CSRF token
      }
    });
    for (var name in chosen || {}) {
      fields[name] = chosen[name];
    }
    return fields;
  }

  document.addEventListener(
    "submit",
    function (e) {
      var form = e.target;
      if (!window.htmx || !form.hasAttribute("hx-post") || !form.closest("#table")) {
        return;
      }
      e.preventDefault();
      e.stopPropagation(); // htmx's own listener on the form would send it again
      var chosen = {};
      if (e.submitter && e.submitter.name) {
        chosen[e.submitter.name] = e.submitter.value; // which button sent it
      }
      sendMove(form, chosen);
    },
    true
  );

  function shownVersion() {
    var t = table();
    return t ? parseInt(t.getAttribute("data-version") || "0", 10) : 0;
  }

  // the table's own poll: not while a move is out, and never back to an older table
  document.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail.elt;
    if (moving && elt && elt.id === "table" && e.detail.requestConfig.verb === "get") {
      e.preventDefault();
    }
  });

  document.addEventListener("htmx:beforeSwap", function (e) {
    // detail.elt is the target here; only the table's own poll is held back
    // (a replay step asks for an older table on purpose)
    var source = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (!source || source.id !== "table" || e.detail.requestConfig.verb !== "get") {
      return;
    }
    var found = /data-version="(\d+)"/.exec(e.detail.xhr.responseText || "");
    var version = found ? parseInt(found[1], 10) : 0;
    if (moving || (found && version < shownVersion())) {
      e.detail.shouldSwap = false;
    }
  });

  document.addEventListener("htmx:afterSwap", settle);
  document.addEventListener("htmx:afterSettle", settle);

  function setUpSound() {
    var box = document.getElementById("turn-sound");
    if (!box) {
      return;
    }
    box.checked = soundOn();
    box.addEventListener("change", function () {
      try {
        window.localStorage.setItem(SOUND_KEY, box.checked ? "1" : "0");
      } catch (err) {
        // private mode: the toggle lasts for this page only
      }
      if (box.checked) {
        chime();
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      setUpSound();
      settle();
    });
  } else {
    setUpSound();
    settle();
  }
})();
