// The door's service worker: it lets a door page open, and scan, with no
// network. It keeps each door page a device opened and the static files
// those pages use; the door list itself lives in IndexedDB (door.js).
// Everything else passes straight through to the network.
"use strict";
const CACHE = "seatmap-door-v1";
const DOOR_PAGE = /^\/staff\/events\/\d+\/door$/;

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function keep(request, response) {
  if (response.ok) {
    const copy = response.clone();
    caches.open(CACHE).then(function (cache) { return cache.put(request, copy); });
  }
  return response;
}

self.addEventListener("fetch", function (event) {
  const request = event.request;
  if (request.method !== "GET") { return; }
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (url.pathname.startsWith("/static/") && url.searchParams.has("v")) {
    // Versioned by content (?v=…): a kept copy is always right.
    event.respondWith(caches.match(request, { ignoreVary: true }).then(function (hit) {
      return hit || fetch(request).then(function (response) { return keep(request, response); });
    }));
  } else if (url.pathname.startsWith("/static/")) {
    // By its plain URL (a module imported by another, ./app/live.js): it
    // may have changed, so the network first, and the kept copy offline.
    event.respondWith(fetch(request).then(function (response) {
      return keep(request, response);
    }).catch(function () {
      return caches.match(request, { ignoreVary: true }).then(function (hit) {
        return hit || Response.error();
      });
    }));
  } else if (request.mode === "navigate" && DOOR_PAGE.test(url.pathname)) {
    // The network first, so an online door is never stale.
    event.respondWith(fetch(request).then(function (response) {
      return keep(request, response);
    }).catch(function () {
      return caches.match(request, { ignoreVary: true })
        .then(function (hit) { return hit || caches.match(request, { ignoreVary: true, ignoreSearch: true }); })
        .then(function (hit) {
          return hit || new Response(
            "Offline, and this device never opened this door page online. Connect once, open the door page, then it works offline.",
            { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
        });
    }));
  }
});
