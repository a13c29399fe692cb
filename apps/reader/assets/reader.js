// Quire reader: the theme (applied before the page paints), the page tree's drawer and the search field on
// narrow screens, live search results under the search box, the code blocks' copy buttons and the content's
// tabs (one panel at a time; without the script every panel shows under its title). Every page
// works without it: the tree then follows the content, the search field always shows, and the theme is the
// system's (or the one the site fixes).
(function () {
  'use strict';
  var root = document.documentElement;
  var KEY = 'quire-theme';
  // Lets the stylesheet keep room for what the script adds (the copy strip) from the first paint.
  root.classList.add('js');

  function stored() {
    try { var v = localStorage.getItem(KEY); if (v === 'light' || v === 'dark') return v; } catch (e) { /* storage off */ }
    var m = /(?:^|; )quire-theme=(light|dark)/.exec(document.cookie);
    return m ? m[1] : null;
  }
  var scheme = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  function system() {
    if (scheme && scheme.matches) return 'dark';
    if (window.matchMedia && window.matchMedia('(prefers-color-scheme: light)').matches) return 'light';
    return root.getAttribute('data-theme-default') === 'dark' ? 'dark' : 'light';
  }
  function apply(theme) { root.setAttribute('data-theme', theme); }
  // A theme the site fixes comes written in the page; otherwise the reader's choice, else the system's.
  var choosable = !root.hasAttribute('data-theme');
  if (choosable) apply(stored() || system());

  document.addEventListener('DOMContentLoaded', function () {
    themeToggle();
    drawer();
    codeBlocks();
    tabsets();
    search();
    scrollBoxes();
  });

  function themeToggle() {
    var toggle = document.querySelector('.theme-toggle');
    if (!toggle || !choosable) return;
    toggle.hidden = false;
    var label = function () { toggle.setAttribute('aria-pressed', root.getAttribute('data-theme') === 'dark' ? 'true' : 'false'); };
    label();
    toggle.addEventListener('click', function () {
      var next = root.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
      apply(next);
      try { localStorage.setItem(KEY, next); } catch (e) { /* storage off */ }
      document.cookie = KEY + '=' + next + '; Path=/; Max-Age=31536000; SameSite=Lax';
      label();
    });
    // Until the reader chooses, the page follows the system as it changes (a phone's evening switch).
    if (scheme && scheme.addEventListener) {
      scheme.addEventListener('change', function () { if (!stored()) { apply(system()); label(); } });
    }
  }

  /** On narrow screens the page tree is a drawer: the Menu button opens it, focus goes in and comes back. */
  function drawer() {
    var menu = document.querySelector('.menu-toggle');
    var nav = document.getElementById('sidebar');
    if (!menu || !nav) return;
    var backdrop = document.createElement('div');
    backdrop.className = 'drawer-backdrop';
    backdrop.hidden = true;
    document.body.appendChild(backdrop);
    var close = document.createElement('button');
    close.type = 'button';
    close.className = 'drawer-close';
    close.textContent = 'Close';
    close.setAttribute('aria-label', 'Close menu');
    nav.insertBefore(close, nav.firstChild);
    function isOpen() { return nav.classList.contains('open'); }
    function focusable() {
      return Array.prototype.filter.call(nav.querySelectorAll('a[href], button, summary'), function (el) { return el.getClientRects().length > 0; });
    }
    function open() {
      nav.classList.add('open');
      backdrop.hidden = false;
      menu.setAttribute('aria-expanded', 'true');
      document.body.classList.add('drawer-open');
      (nav.querySelector('a[aria-current=page]') || close).focus({ preventScroll: true });
    }
    function shut(giveFocusBack) {
      if (!isOpen()) return;
      nav.classList.remove('open');
      backdrop.hidden = true;
      menu.setAttribute('aria-expanded', 'false');
      document.body.classList.remove('drawer-open');
      if (giveFocusBack) menu.focus();
    }
    menu.addEventListener('click', function () { if (isOpen()) shut(true); else open(); });
    close.addEventListener('click', function () { shut(true); });
    backdrop.addEventListener('click', function () { shut(true); });
    nav.addEventListener('keydown', function (event) {
      if (!isOpen()) return;
      if (event.key === 'Escape') { event.preventDefault(); shut(true); return; }
      if (event.key !== 'Tab') return;
      // The rest of the page is behind the backdrop: Tab goes round inside the drawer.
      var items = focusable();
      var first = items[0];
      var last = items[items.length - 1];
      if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
      else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
    });
    // Widening the window past the drawer's width puts the tree back in the page.
    if (window.matchMedia) {
      var wide = window.matchMedia('(min-width: 64.01rem)');
      if (wide.addEventListener) wide.addEventListener('change', function () { if (wide.matches) shut(false); });
    }
  }

  function codeBlocks() {
    document.querySelectorAll('.page pre').forEach(function (pre) {
      var code = pre.querySelector('code');
      var box = document.createElement('div');
      box.className = 'code-block';
      pre.parentNode.insertBefore(box, pre);
      box.appendChild(pre);
      var language = code && /(?:^| )language-([\w#+.-]+)/.exec(code.className);
      if (language) {
        var tag = document.createElement('span');
        tag.className = 'code-lang';
        tag.textContent = language[1];
        box.appendChild(tag);
      }
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy code');
      button.addEventListener('click', function () {
        if (!navigator.clipboard || !code) return;
        navigator.clipboard.writeText(code.textContent || '').then(function () {
          button.textContent = 'Copied';
          setTimeout(function () { button.textContent = 'Copy'; }, 1500);
        });
      });
      box.appendChild(button);
    });
  }

  /** Code and tables that scroll sideways can be scrolled by keyboard too: they take the focus while they do. */
  /**
   * Tabs in the content (packages/render/src/tabs.ts makes their markup, every panel shown): the WAI-ARIA
   * tabs pattern with automatic activation. One panel shows at a time; a click or the arrow keys, Home and
   * End choose the tab; only the selected tab is in the Tab order. A link to something inside a hidden panel
   * (a heading's anchor) shows that panel.
   */
  function tabsets() {
    var sets = Array.prototype.slice.call(document.querySelectorAll('.tabset'));
    sets.forEach(function (set) {
      var list = set.querySelector(':scope > [role=tablist]');
      if (!list) return;
      var tabs = Array.prototype.slice.call(list.querySelectorAll(':scope > [role=tab]'));
      if (!tabs.length) return;
      function select(tab, focus) {
        tabs.forEach(function (each) {
          var on = each === tab;
          each.setAttribute('aria-selected', on ? 'true' : 'false');
          each.tabIndex = on ? 0 : -1;
          var panel = document.getElementById(each.getAttribute('aria-controls'));
          if (panel) panel.hidden = !on;
        });
        if (focus) tab.focus();
      }
      set.classList.add('tabset-ready');
      select(tabs.filter(function (tab) { return tab.getAttribute('aria-selected') === 'true'; })[0] || tabs[0], false);
      list.addEventListener('click', function (event) {
        var tab = event.target.closest('[role=tab]');
        if (tab && tabs.indexOf(tab) >= 0) select(tab, false);
      });
      list.addEventListener('keydown', function (event) {
        var at = tabs.indexOf(document.activeElement);
        if (at < 0) return;
        var next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
        if (next === undefined) return;
        event.preventDefault();
        select(tabs[(next + tabs.length) % tabs.length], true);
      });
    });
    function reveal() {
      var id = decodeURIComponent(location.hash.slice(1));
      var target = id && document.getElementById(id);
      var panel = target && target.closest ? target.closest('.tabset-panel[hidden]') : null;
      var tab = panel && document.getElementById(panel.getAttribute('aria-labelledby'));
      if (tab) { tab.click(); target.scrollIntoView(); }
    }
    if (sets.length) { reveal(); window.addEventListener('hashchange', reveal); }
  }

  function scrollBoxes() {
    var boxes = document.querySelectorAll('.page pre, .page table');
    var mark = function () {
      boxes.forEach(function (box) {
        if (box.scrollWidth > box.clientWidth + 1) box.setAttribute('tabindex', '0');
        else box.removeAttribute('tabindex');
      });
    };
    mark();
    var timer = 0;
    window.addEventListener('resize', function () { clearTimeout(timer); timer = setTimeout(mark, 100); });
  }

  function search() {
    var header = document.querySelector('.header');
    var form = document.querySelector('form.search');
    var input = form && form.querySelector('input[name=q]');
    if (!header || !form || !input) return;
    var opener = form.querySelector('.search-open');
    var list = document.createElement('ul');
    list.className = 'live-results';
    list.hidden = true;
    list.setAttribute('aria-live', 'polite');
    form.appendChild(list);

    // On phones the field hides behind an icon; opened, it covers the header until it loses the focus.
    function shut(giveFocusBack) {
      if (!header.classList.contains('searching')) return;
      header.classList.remove('searching');
      opener.setAttribute('aria-expanded', 'false');
      list.hidden = true;
      if (giveFocusBack) opener.focus();
    }
    if (opener) {
      opener.addEventListener('click', function () {
        header.classList.add('searching');
        opener.setAttribute('aria-expanded', 'true');
        input.focus();
      });
      form.addEventListener('focusout', function (event) {
        if (!event.relatedTarget || !form.contains(event.relatedTarget)) setTimeout(function () { if (!form.contains(document.activeElement)) shut(false); }, 0);
      });
    }

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
            showResults(new DOMParser().parseFromString(html, 'text/html'));
          })
          .catch(function () { list.hidden = true; });
      }, 150);
    });

    /** The search page's first results: the page, and the first section's snippet with its marked words. */
    function showResults(doc) {
      var found = doc.querySelectorAll('.results > .result');
      list.textContent = '';
      Array.prototype.slice.call(found, 0, 8).forEach(function (result) {
        var a = result.querySelector(':scope > a');
        if (!a) return;
        var li = document.createElement('li');
        var link = document.createElement('a');
        link.href = a.getAttribute('href');
        link.textContent = a.textContent;
        li.appendChild(link);
        var snippet = result.querySelector('.snippet');
        if (snippet) {
          var p = document.createElement('p');
          // Text and <mark> only, rebuilt here: nothing else of the fetched page is carried over.
          snippet.childNodes.forEach(function (node) {
            if (node.nodeName === 'MARK') { var mark = document.createElement('mark'); mark.textContent = node.textContent; p.appendChild(mark); }
            else p.appendChild(document.createTextNode(node.textContent || ''));
          });
          li.appendChild(p);
        }
        list.appendChild(li);
      });
      if (!found.length) { var none = document.createElement('li'); none.textContent = 'No results'; list.appendChild(none); }
      list.hidden = false;
    }

    document.addEventListener('keydown', function (event) {
      if (event.key === 'Escape') {
        list.hidden = true;
        if (form.contains(document.activeElement)) shut(true);
      }
      if (event.key === '/' && document.activeElement === document.body) {
        event.preventDefault();
        if (opener && getComputedStyle(opener).display !== 'none') opener.click(); else input.focus();
      }
    });
  }
})();
