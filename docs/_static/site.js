/* Citable pages: the language switch keeps the anchor; headings, numbered equations and table
   rows get a button that copies a citation of them; and search result snippets show only the
   page's own text.

   A copied link is a citation: the address of this release of the site (…/en/v0.1.0/page.html
   #anchor, whatever address the reader is on: latest, a file:// copy), the site version, for
   a mask-table row each value it observed with the releases that observe it, and for an
   equation its number.  The build passes the address, the version and each
   row's releases (docs/_ext/citation.py), and the strings in the page's language come from the
   page template through Sphinx's gettext (docs/_templates/page.html,
   docs/locales/zh_CN/LC_MESSAGES/sphinx.po), all in the "site-strings" JSON. */
"use strict";

(() => {
  const strings = () => {
    const element = document.getElementById("site-strings");
    return element ? JSON.parse(element.textContent) : {};
  };

  /* -- the language switch goes to the same place in the other language --------------------- */

  // Both languages share every anchor (section ids are the English slugs, table rows their claim
  // ids), so the switch carries the anchor the reader is at: the one the page was opened with, or
  // the one a link inside the page (a row, the table of contents) led to since.
  const currentAnchor = () => window.location.hash;

  const updateLanguageLinks = () => {
    const anchor = currentAnchor();
    for (const link of document.querySelectorAll("a.language-switch-link")) {
      if (!link.dataset.page) {
        link.dataset.page = link.getAttribute("href");
      }
      link.setAttribute("href", link.dataset.page + anchor);
    }
  };

  const followReader = () => {
    for (const link of document.querySelectorAll("a.language-switch-link")) {
      // the anchor is read when the link is used: pointer, keyboard or context menu
      for (const event of ["pointerdown", "focus", "click", "contextmenu"]) {
        link.addEventListener(event, updateLanguageLinks);
      }
    }
  };

  /* -- copy-link buttons ------------------------------------------------------------------- */

  const ICON =
    '<svg viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" focusable="false" ' +
    'fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" ' +
    'stroke-linejoin="round"><path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7"/>' +
    '<path d="M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7"/></svg>';

  const copyText = async (text) => {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return;
    }
    // file:// pages and plain-http hosts have no asynchronous clipboard
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  };

  // "{url} (attention {version})" with its fields filled in
  const fill = (template, fields) =>
    template.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? fields[name] : whole));

  // A row's citation names its values with the releases that observe each (the build writes
  // the phrase, in the page's language); an equation's names its number.
  const citation = (id, number) => {
    const text = strings();
    const data = text.citation || {};
    // a build without the data (an old template) still copies a working address
    const page = data.url || window.location.href.split("#")[0];
    const url = new URL("#" + id, page).href;
    const verified = (data.rows || {})[id];
    if (!text.citePage || !data.version) {
      return url;
    }
    const template = verified
      ? text.citeRow
      : number && text.citeEquation
        ? text.citeEquation
        : text.citePage;
    const fields = { url: url, version: data.version, verified: verified || "" };
    return fill(template, { ...fields, number: number || "" });
  };

  const copyLinkButton = (id, label, copied, number) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy-link";
    button.setAttribute("aria-label", label);
    button.title = label;
    button.dataset.anchor = id;
    button.innerHTML = ICON;
    button.addEventListener("click", async (event) => {
      event.preventDefault();
      event.stopPropagation();
      await copyText(citation(id, number));
      button.classList.add("copied");
      button.title = copied;
      const status = document.getElementById("copy-link-status");
      if (status) {
        status.textContent = copied;
      }
      window.setTimeout(() => {
        button.classList.remove("copied");
        button.title = label;
      }, 2000);
    });
    return button;
  };

  // A heading's last word: the text after its last space (or hyphen), and in Chinese (no spaces
  // between words) its last Han character with what follows it (a closing bracket, a Latin
  // word).  The rest of the heading breaks as the prose does, between any two Chinese
  // characters.
  const HAN = /\p{Script=Han}/u;
  const lastWord = (text) => {
    const words = text.match(/^([^]*?)(\S+\s*)$/);
    if (!words) {
      return null;
    }
    let [, before, word] = words;
    const chars = [...word];
    let han = -1;
    chars.forEach((char, index) => {
      if (HAN.test(char)) {
        han = index;
      }
    });
    if (han > 0) {
      before += chars.slice(0, han).join("");
      word = chars.slice(han).join("");
    } else if (han < 0) {
      // a hyphenated word breaks after its last hyphen, as the browser breaks it in prose
      const hyphen = word.search(/[-\u2010][^-\u2010]+$/);
      if (hyphen > 0) {
        before += word.slice(0, hyphen + 1);
        word = word.slice(hyphen + 1);
      }
    }
    return before ? [before, word] : null;
  };

  // The button stays on the line of the heading's last word: that word (or the name in code that
  // ends the heading), Sphinx's ¶ link and the button go into one span that does not wrap
  // (site.css: .heading-tail).  A name in code inside it still breaks after a dot or an
  // underscore, where the build put a <wbr>, and code of several words at its spaces.
  const keepWithLastWord = (heading, button) => {
    const tail = document.createElement("span");
    tail.className = "heading-tail";
    const nodes = [...heading.childNodes];
    const isMark = (node) =>
      (node.nodeType === Node.TEXT_NODE && !node.textContent.trim()) ||
      (node.nodeType === Node.ELEMENT_NODE && node.matches("a.headerlink"));
    let last = nodes.length - 1;
    while (last >= 0 && isMark(nodes[last])) {
      last -= 1;
    }
    if (last >= 0) {
      const node = nodes[last];
      const words = node.nodeType === Node.TEXT_NODE && lastWord(node.textContent);
      if (words) {
        node.textContent = words[0];
        tail.appendChild(document.createTextNode(words[1]));
        last += 1; // the text before the last word stays where it is
      }
    }
    for (const node of nodes.slice(Math.max(last, 0))) {
      tail.appendChild(node);
    }
    // a word joiner: no line break between the last word and the button, even after code that
    // may wrap at its own spaces (a break before an inline button follows the text before it)
    tail.appendChild(document.createTextNode("\u2060"));
    tail.appendChild(button);
    heading.appendChild(tail);
  };

  const addCopyLinkButtons = () => {
    const text = strings();
    const article = document.querySelector("article[role=main]");
    if (!article) {
      return;
    }
    const status = document.createElement("span");
    status.id = "copy-link-status";
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    article.appendChild(status);
    for (const heading of article.querySelectorAll(
      "section[id] > :is(h1, h2, h3, h4, h5, h6)",
    )) {
      const id = heading.parentElement.id;
      keepWithLastWord(heading, copyLinkButton(id, text.copySection, text.copied));
    }
    // numbered display equations: <div class="math" id="equation-LABEL"><span class="eqno">(N)
    for (const number of article.querySelectorAll('div.math[id^="equation-"] span.eqno')) {
      const id = number.closest("div.math").id;
      const shown = number.textContent.trim(); // "(3)", before the button joins it
      number.appendChild(copyLinkButton(id, text.copyEquation, text.copied, shown));
    }
    for (const row of article.querySelectorAll("table.semantics-table tr[id]")) {
      const cell = row.querySelector(".semantics-id");
      if (cell) {
        cell.appendChild(copyLinkButton(row.id, text.copyRow, text.copied));
      }
    }
  };

  /* -- the release matrix: a tap on a row's bar opens its details ---------------------------- */

  // A run's title says its releases and what it changed from, for a pointer; a phone has no
  // hover, so a tap on the bar opens the row's <details> (on its id's line) and closes it again
  // (docs/_ext/semantics_releases.py).
  const openMatrixDetails = () => {
    for (const bar of document.querySelectorAll("table.semantics-matrix tr.matrix-runs")) {
      const details = bar.previousElementSibling?.querySelector("details.matrix-details");
      if (details) {
        bar.addEventListener("click", () => {
          details.open = !details.open;
        });
      }
    }
  };

  /* -- search snippets --------------------------------------------------------------------- */

  // Sphinx's searchtools builds each result's snippet from the text of the fetched page.  Leave
  // out what is not the page's own prose: the language switch, and the formulas (MathML, whose
  // text run together reads as noise in a plain-text snippet, so a formula becomes "…").
  const cleanSearchText = () => {
    if (typeof Search === "undefined" || Search.siteCleaned) {
      return;
    }
    const original = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => {
      const page = new DOMParser().parseFromString(htmlString, "text/html");
      for (const element of page.querySelectorAll(".language-switch, .copy-link")) {
        element.remove();
      }
      for (const element of page.querySelectorAll(".math")) {
        element.replaceWith(page.createTextNode(" … "));
      }
      const text = original(page.documentElement.outerHTML, anchor);
      return text.replace(/[ \t]+/g, " ");
    };
    Search.siteCleaned = true;
  };

  const translateThemeLabels = () => {
    // furo writes these labels into its templates without gettext
    const text = strings();
    const labels = {
      "input#__navigation": text.toggleNavigation,
      "input#__toc": text.toggleToc,
      "button.theme-toggle": text.toggleTheme,
    };
    for (const [selector, label] of Object.entries(labels)) {
      for (const element of document.querySelectorAll(selector)) {
        if (label) {
          element.setAttribute("aria-label", label);
        }
      }
    }
  };

  cleanSearchText();
  window.addEventListener("hashchange", updateLanguageLinks);
  document.addEventListener("DOMContentLoaded", () => {
    cleanSearchText();
    translateThemeLabels();
    updateLanguageLinks();
    followReader();
    addCopyLinkButtons();
    openMatrixDetails();
  });
})();
