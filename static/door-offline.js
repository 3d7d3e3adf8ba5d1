// The door when the network drops. While online, the device keeps the
// event's door list in IndexedDB: each ticket by a keyed hash of its code
// (HMAC-SHA256 under the event's key, first 16 bytes), never the code, so
// a lost phone admits nobody and leaks no ticket. Offline, a scan is
// checked against that list, admitted at most once on this device, and
// queued with its time and gate; the queue is sent when the network is
// back (POST …/admissions/batch), where the server admits each ticket once
// and reports a ticket two gates let in. The queue is in IndexedDB too, so
// it survives a reload; the service worker (/door-sw.js) keeps the page.
(function () {
  "use strict";
  const root = document.querySelector("[data-door-offline]");
  const form = document.getElementById("door-scan");
  if (!root || !form) { return; }
  const line = root.querySelector("[data-door-network]");
  if (!window.indexedDB || !window.crypto || !window.crypto.subtle || !window.localStorage) {
    // WebCrypto and service workers need a secure context (HTTPS, or
    // localhost): without one the door works online only, and says so.
    line.hidden = false;
    line.textContent = "Online only: this browser can't keep the door list here (the door needs HTTPS to work offline).";
    return;
  }
  const eventId = Number(root.dataset.eventId);
  const conflictsBox = root.querySelector("[data-door-conflicts]");
  const gate = form.querySelector("[name=gate]").value;
  const REFRESH_MS = 15000;

  // The server names devices: an id issued to this account, asked for
  // once and kept (one per account, should staff share a device).
  const deviceKey = "seatmap-door-device:" + root.dataset.doorAccount;
  let device = localStorage.getItem(deviceKey);
  function useDevice(id) {
    device = id;
    localStorage.setItem(deviceKey, id);
    form.querySelector("[data-door-device]").value = id;
  }
  function issueDevice() {
    return fetch(root.dataset.doorDevices, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: "{}",
    }).then(function (response) {
      if (!response.ok) { throw new Error("device: " + response.status); }
      return response.json();
    }).then(function (answer) { useDevice(answer.device); });
  }
  if (device) { useDevice(device); } else if (navigator.onLine) { issueDevice().catch(function () {}); }

  // ---- Storage --------------------------------------------------------
  function openDb() {
    return new Promise(function (resolve, reject) {
      const request = indexedDB.open("seatmap-door", 1);
      request.onupgradeneeded = function () {
        const db = request.result;
        db.createObjectStore("lists", { keyPath: "eventId" });
        db.createObjectStore("queue", { keyPath: "id", autoIncrement: true });
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }
  const dbReady = openDb();

  function store(name, mode, work) {
    return dbReady.then(function (db) {
      return new Promise(function (resolve, reject) {
        const tx = db.transaction(name, mode);
        const value = work(tx.objectStore(name));
        tx.oncomplete = function () { resolve(value && "result" in value ? value.result : undefined); };
        tx.onerror = function () { reject(tx.error); };
        tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  // ---- State ----------------------------------------------------------
  let list = null;          // { eventId, generatedAt, key, tickets: {hash: ticket}, conflicts }
  let hmacKey = null;
  let queue = [];           // this event's scans not yet sent
  let reachable = navigator.onLine;
  // The server said this device is no longer signed in (or its account
  // can't use the door): it admits nobody, online or off, until someone
  // signs in again. A disabled account's phone doesn't go on admitting.
  let signedOut = false;
  let lastCode = "";

  function offline() { return !navigator.onLine || !reachable; }

  function refused(response) {
    if (response.status === 401 || response.status === 403) {
      signedOut = true;
      throw new Error("signed out");
    }
  }

  function hhmm(iso) {
    return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
  }

  function render() {
    line.hidden = false;
    if (signedOut) {
      line.textContent = "Signed out: sign in again to check tickets." + (queue.length ? " " + queue.length + " offline admissions wait to be sent." : "");
      line.className = "door-network door-network--offline";
      root.dataset.doorState = "signed-out";
      root.dataset.doorQueue = String(queue.length);
      return;
    }
    const waiting = queue.length === 1 ? "1 scan waiting to be sent" : queue.length + " scans waiting to be sent";
    let text;
    if (!offline()) {
      text = list ? "Online · door list from " + hhmm(list.generatedAt) + " kept on this device" : "Online · getting the door list…";
    } else if (list) {
      text = "Offline: checking against the list from " + hhmm(list.generatedAt);
    } else {
      text = "Offline, and this device has no door list yet: tickets can't be checked.";
    }
    if (queue.length) { text += " · " + waiting; }
    line.textContent = text;
    line.className = "door-network" + (offline() ? " door-network--offline" : "");
    root.dataset.doorState = offline() ? "offline" : "online";
    root.dataset.doorQueue = String(queue.length);
  }

  function showConflicts(conflicts) {
    if (!conflictsBox || !conflicts) { return; }
    const items = conflictsBox.querySelector("ul");
    items.replaceChildren.apply(items, conflicts.map(function (c) {
      const item = document.createElement("li");
      item.textContent = c.message;
      return item;
    }));
    conflictsBox.hidden = conflicts.length === 0;
  }

  function showResult(verdict, headline, detail) {
    const box = document.getElementById("door-result");
    box.className = "door-result door-result--" + verdict;
    const head = document.createElement("p");
    head.className = "door-result__headline";
    head.textContent = headline;
    const more = document.createElement("p");
    more.className = "door-result__detail";
    more.textContent = detail;
    box.replaceChildren(head, more);
  }

  // ---- Hashing (the same as domain::door::DoorKey::hash) ---------------
  function hexToBytes(hex) {
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i++) { bytes[i] = parseInt(hex.substr(i * 2, 2), 16); }
    return bytes;
  }

  function useKey(hex) {
    hmacKey = crypto.subtle.importKey("raw", hexToBytes(hex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return hmacKey;
  }

  // The code as domain::ticket::TicketCode::parse spells it, or null: a
  // typed zero is the letter O and a one the letter I (codes have neither
  // digit).
  function normalCode(text) {
    const code = text.replace(/[\s-]/g, "").toUpperCase().replace(/0/g, "O").replace(/1/g, "I");
    return /^[A-Z2-7]{32}$/.test(code) ? code : null;
  }

  function hashOf(code) {
    return hmacKey.then(function (key) {
      return crypto.subtle.sign("HMAC", key, new TextEncoder().encode(code));
    }).then(function (mac) {
      return Array.from(new Uint8Array(mac).slice(0, 16), function (b) {
        return b.toString(16).padStart(2, "0");
      }).join("");
    });
  }

  // ---- The list --------------------------------------------------------
  function refreshList() {
    return fetch(root.dataset.doorList, { credentials: "same-origin", headers: { accept: "application/json" } })
      .then(function (response) {
        refused(response);
        if (!response.ok) { throw new Error("door list: " + response.status); }
        signedOut = false;
        return response.json();
      })
      .then(function (fresh) {
        const tickets = {};
        fresh.tickets.forEach(function (t) { tickets[t.hash] = t; });
        list = { eventId: eventId, generatedAt: fresh.generated_at, key: fresh.key, tickets: tickets, conflicts: fresh.conflicts };
        useKey(fresh.key);
        // What this device admitted and has not sent is admitted, whatever
        // the server's list says yet.
        queue.forEach(markAdmitted);
        reachable = true;
        showConflicts(fresh.conflicts);
        return store("lists", "readwrite", function (s) { return s.put(list); });
      })
      .catch(function () { if (!signedOut) { reachable = false; } })
      .then(render);
  }

  function markAdmitted(scan) {
    const ticket = list && list.tickets[scan.hash];
    if (ticket && ticket.state === "valid") {
      ticket.state = "admitted";
      ticket.admitted_at = scan.scannedAt;
      ticket.gate = scan.gate;
    }
  }

  // ---- Offline scans ---------------------------------------------------
  function checkLocally(text) {
    if (signedOut) {
      showResult("refuse", "Signed out", "Sign in again to check tickets.");
      return Promise.resolve();
    }
    const code = normalCode(text || "");
    if (!code) {
      showResult("refuse", "Not a ticket code", "A code is 32 letters and digits, as printed under the QR code.");
      return Promise.resolve();
    }
    if (!list) {
      showResult("refuse", "Can't check offline", "This device has no door list for this event yet. Connect once with the door page open.");
      return Promise.resolve();
    }
    const from = "Offline: checked against the list from " + hhmm(list.generatedAt) + ".";
    return hashOf(code).then(function (hash) {
      const ticket = list.tickets[hash];
      if (!ticket) {
        showResult("refuse", "Unknown ticket", "No ticket of this event has this code. " + from);
        return;
      }
      if (ticket.state === "transferred") {
        showResult("refuse", "Transferred", "This code was passed on: only its new holder's code gets in (" + ticket.place + "). " + from);
        return;
      }
      if (ticket.state === "refunded") {
        showResult("refuse", "Refunded", ticket.place + " was refunded: this ticket is void. " + from);
        return;
      }
      if (ticket.state === "admitted") {
        showResult("refuse", "Already admitted at " + hhmm(ticket.admitted_at) + " at " + (ticket.gate || "the door"), ticket.place + ". " + from);
        return;
      }
      const scan = { eventId: eventId, hash: hash, gate: gate, scannedAt: new Date().toISOString() };
      markAdmitted(scan);
      return store("queue", "readwrite", function (s) { return s.add(scan); }).then(function (id) {
        scan.id = id;
        queue.push(scan);
        store("lists", "readwrite", function (s) { return s.put(list); });
        showResult("admit", "Admit — " + ticket.place, from + " Sent when the network is back.");
        render();
      });
    });
  }

  // ---- Sending the queue -------------------------------------------------
  let sending = false;
  function sync() {
    if (sending || !queue.length || !navigator.onLine) { return Promise.resolve(); }
    if (!device) { return issueDevice().then(sync, function () {}); }
    sending = true;
    const batch = queue.slice(0, 500);
    return fetch(root.dataset.doorBatch, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        device: device,
        scans: batch.map(function (s) { return { hash: s.hash, gate: s.gate, scanned_at: s.scannedAt }; }),
      }),
    }).then(function (response) {
      refused(response);
      if (!response.ok) {
        // A device id the server doesn't know as this account's (a reset
        // database, say): the next sync asks for a new one. Any other
        // refusal keeps the device.
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (response.status === 422 && /issued to you/.test(body.message || "")) {
            localStorage.removeItem(deviceKey);
            device = null;
          }
          throw new Error("sync: " + response.status);
        });
      }
      return response.json();
    }).then(function (answer) {
      const sent = batch.map(function (s) { return s.id; });
      queue = queue.filter(function (s) { return sent.indexOf(s.id) < 0; });
      showConflicts(answer.conflicts);
      reachable = true;
      return store("queue", "readwrite", function (s) { sent.forEach(function (id) { s.delete(id); }); });
    }).catch(function () { if (!signedOut) { reachable = false; } })
      .then(function () { sending = false; render(); });
  }

  // ---- Wiring ------------------------------------------------------------
  // Before htmx sees the submit: offline, the check is this device's.
  document.addEventListener("submit", function (event) {
    if (event.target !== form) { return; }
    lastCode = form.querySelector("[name=code]").value;
    if (!offline() && !signedOut) { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
    const input = form.querySelector("[name=code]");
    checkLocally(lastCode).then(function () { input.value = ""; input.focus(); });
  }, true);

  // Online as far as the browser knows, but the request never arrived.
  document.body.addEventListener("htmx:sendError", function (event) {
    if (event.detail.elt !== form) { return; }
    reachable = false;
    checkLocally(lastCode).then(render);
  });

  // An online admission is one this device's list must know at once, or a
  // drop just after it would let the same ticket in again here.
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.elt !== form || !event.detail.successful || !list) { return; }
    const box = document.getElementById("door-result");
    const code = normalCode(lastCode);
    if (code && box && box.classList.contains("door-result--admit")) {
      hashOf(code).then(function (hash) { markAdmitted({ hash: hash, gate: gate, scannedAt: new Date().toISOString() }); });
    }
  });

  window.addEventListener("online", function () { sync().then(refreshList); });
  window.addEventListener("offline", function () { reachable = false; render(); });

  function tick() {
    if (!navigator.onLine) { render(); return; }
    sync().then(refreshList);
  }

  // Start from what the device kept (this works offline), then the server.
  Promise.all([
    store("lists", "readonly", function (s) { return s.get(eventId); }),
    store("queue", "readonly", function (s) { return s.getAll(); }),
  ]).then(function (kept) {
    if (kept[0]) {
      list = kept[0];
      useKey(list.key);
      showConflicts(list.conflicts);
    }
    queue = (kept[1] || []).filter(function (s) { return s.eventId === eventId; });
    queue.forEach(markAdmitted);
    render();
    tick();
    setInterval(tick, REFRESH_MS);
  });

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(root.dataset.doorWorker, { scope: "/staff/events/" })
      .then(function () { return navigator.serviceWorker.ready; })
      .then(function () {
        // The page and what it uses, kept for a reload with no network.
        const urls = [location.pathname + location.search];
        document.querySelectorAll("script[src], link[rel=stylesheet], link[rel=icon], link[rel=manifest]").forEach(function (el) {
          urls.push(el.getAttribute("src") || el.getAttribute("href"));
        });
        // And the modules those scripts imported (./app/live.js…).
        performance.getEntriesByType("resource").forEach(function (entry) {
          const url = new URL(entry.name);
          if (url.origin === location.origin && url.pathname.startsWith("/static/") && url.pathname.endsWith(".js") &&
              urls.indexOf(url.pathname + url.search) < 0) {
            urls.push(url.pathname + url.search);
          }
        });
        return caches.open("seatmap-door-v1").then(function (cache) { return cache.addAll(urls); });
      })
      .then(function () { root.dataset.doorCached = "yes"; })
      .catch(function () { /* online-only: the line above says what works */ });
  }
})();
