// Quire reader: the theme (applied before the page paints, remembered in localStorage and a cookie), live
// search results under the search box, and copy buttons on code blocks. Every page works without it.
(function () {
  'use strict';
  var root = document.documentElement;
  var KEY = 'quire-theme';
  function stored() {
    try { var v = localStorage.getItem(KEY); if (v === 'light' || v === 'dark') return v; } catch (e) { /* storage off */ }
    var m = /(?:^|; )quire-theme=(light|dark)/.exec(document.cookie);
    return m ? m[1] : null;
  }
  function apply(theme) { root.setAttribute('data-theme', theme); }
  var initial = stored();
  if (initial) apply(initial);

  document.addEventListener('DOMContentLoaded', function () {
    var toggle = document.querySelector('.theme-toggle');
    if (toggle) {
      toggle.hidden = false;
      var label = function () {
        var dark = root.getAttribute('data-theme') === 'dark';
        toggle.textContent = dark ? 'Light' : 'Dark';
        toggle.setAttribute('aria-pressed', dark ? 'true' : 'false');
      };
      label();
      toggle.addEventListener('click', function () {
        var next = root.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
        apply(next);
        try { localStorage.setItem(KEY, next); } catch (e) { /* storage off */ }
        document.cookie = KEY + '=' + next + '; Path=/; Max-Age=31536000; SameSite=Lax';
        label();
      });
    }

    document.querySelectorAll('.page pre').forEach(function (pre) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy code');
      button.addEventListener('click', function () {
        var code = pre.querySelector('code');
        if (!navigator.clipboard || !code) return;
        navigator.clipboard.writeText(code.textContent || '').then(function () {
          button.textContent = 'Copied';
          setTimeout(function () { button.textContent = 'Copy'; }, 1500);
        });
      });
      pre.appendChild(button);
    });

    var form = document.querySelector('form.search');
    var input = form && form.querySelector('input[name=q]');
    if (!form || !input) return;
    var list = document.createElement('ul');
    list.className = 'live-results';
    list.hidden = true;
    list.setAttribute('aria-live', 'polite');
    form.appendChild(list);
    var timer = 0;
    var latest = 0;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      var q = input.value.trim();
      if (q.length < 2) { list.hidden = true; return; }
      timer = setTimeout(function () {
        var ticket = ++latest;
        fetch(form.getAttribute('action') + '?q=' + encodeURIComponent(q), { credentials: 'same-origin' })
          .then(function (r) { return r.text(); })
          .then(function (html) {
            if (ticket !== latest) return;
            var doc = new DOMParser().parseFromString(html, 'text/html');
            var found = doc.querySelectorAll('.results > .result > a');
            list.textContent = '';
            found.forEach(function (a, i) {
              if (i >= 8) return;
              var li = document.createElement('li');
              var link = document.createElement('a');
              link.href = a.getAttribute('href');
              link.textContent = a.textContent;
              li.appendChild(link);
              list.appendChild(li);
            });
            if (!found.length) { var none = document.createElement('li'); none.textContent = 'No results'; list.appendChild(none); }
            list.hidden = false;
          })
          .catch(function () { list.hidden = true; });
      }, 150);
    });
    document.addEventListener('keydown', function (event) {
      if (event.key === 'Escape') list.hidden = true;
      if (event.key === '/' && document.activeElement === document.body) { event.preventDefault(); input.focus(); }
    });
  });
})();
