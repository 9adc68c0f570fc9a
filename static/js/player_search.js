// Player search: every <input data-player-search="URL"> becomes a combobox
// (WAI-ARIA 1.2, list autocomplete) that suggests usernames as they are typed,
// from URL?q=... ({"players": [...]}). Arrow keys move through the list,
// Enter or a click picks, Escape closes. Without this script the field is a
// plain text field and the form works the same.
(function () {
  "use strict";
  var seq = 0;

  function setUp(input) {
    var url = input.getAttribute("data-player-search");
    var id = "player-suggestions-" + ++seq;
    var list = document.createElement("ul");
    list.id = id;
    list.className = "player-suggestions";
    list.setAttribute("role", "listbox");
    // its own name (not the field's label: one label, one field)
    list.setAttribute("aria-label", input.getAttribute("data-list-name") || "suggestions");
    list.hidden = true;
    input.insertAdjacentElement("afterend", list);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", id);
    var active = -1;
    var timer = null;
    var asked = 0;

    function options() {
      return list.querySelectorAll("[role=option]");
    }
    function close() {
      list.hidden = true;
      active = -1;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }
    function mark(i) {
      var all = options();
      if (!all.length) return;
      active = (i + all.length) % all.length;
      all.forEach(function (o, k) {
        o.setAttribute("aria-selected", k === active ? "true" : "false");
      });
      input.setAttribute("aria-activedescendant", all[active].id);
      all[active].scrollIntoView({ block: "nearest" });
    }
    function pick(option) {
      input.value = option.getAttribute("data-name");
      close();
      input.focus();
    }
    function show(names) {
      list.textContent = "";
      names.forEach(function (name, k) {
        var li = document.createElement("li");
        li.id = id + "-" + k;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.setAttribute("data-name", name);
        li.textContent = name;
        li.addEventListener("mousedown", function (e) {
          e.preventDefault(); // the input keeps the focus
          pick(li);
        });
        list.appendChild(li);
      });
      active = -1;
      input.removeAttribute("aria-activedescendant");
      list.hidden = names.length === 0;
      input.setAttribute("aria-expanded", names.length ? "true" : "false");
    }
    function ask() {
      var q = input.value.trim();
      var mine = ++asked;
      if (!q) {
        show([]);
        return;
      }
      fetch(url + "?q=" + encodeURIComponent(q), { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) {
          return r.ok ? r.json() : { players: [] };
        })
        .then(function (data) {
          if (mine === asked) show(data.players || []);
        })
        .catch(function () {
          if (mine === asked) show([]);
        });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, 150);
    });
    input.addEventListener("keydown", function (e) {
      var open = !list.hidden;
      if (e.key === "ArrowDown") {
        e.preventDefault();
        if (open) mark(active + 1);
        else ask();
      } else if (e.key === "ArrowUp" && open) {
        e.preventDefault();
        mark(active - 1);
      } else if (e.key === "Enter" && open && active >= 0) {
        e.preventDefault(); // picks the name; the next Enter sends the form
        pick(options()[active]);
      } else if (e.key === "Escape" && open) {
        e.preventDefault();
        close();
      }
    });
    input.addEventListener("blur", function () {
      setTimeout(close, 100);
    });
  }

  function init() {
    document.querySelectorAll("input[data-player-search]").forEach(setUp);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
