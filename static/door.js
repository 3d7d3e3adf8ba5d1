// The door page's camera: frames from the back camera go to jsQR (vendored
// from npm, static/jsQR.js); a code it finds is put in the code field and
// the form is submitted, as if typed. One ticket held in view is one scan.
(function () {
  "use strict";
  const box = document.querySelector("[data-door-camera]");
  const form = document.getElementById("door-scan");
  if (!box || !form) { return; }
  const start = box.querySelector("[data-camera-start]");
  const video = box.querySelector("video");
  const status = box.querySelector("[data-camera-status]");
  const canvas = document.createElement("canvas");
  const context = canvas.getContext("2d", { willReadFrequently: true });
  let last = { code: "", at: 0 };

  // No camera here (plain HTTP on a LAN name, or none at all): the button
  // would only fail, so it isn't offered; the typed code is the way.
  if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    start.hidden = true;
    status.textContent = "No camera on this connection (it needs HTTPS): type the code.";
    return;
  }

  // A code still in view (seen within the last 10 s) is not sent again:
  // the green "Admit" stays up until the next ticket, not flipping to
  // "Already admitted" while the guest is still holding out their phone.
  function submit(code) {
    const now = Date.now();
    const seenJustNow = code === last.code && now - last.at < 10000;
    last = { code: code, at: now };
    if (seenJustNow) { return; }
    form.querySelector("[name=code]").value = code;
    form.requestSubmit();
  }

  function look() {
    if (video.readyState === video.HAVE_ENOUGH_DATA && typeof jsQR === "function") {
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      context.drawImage(video, 0, 0, canvas.width, canvas.height);
      const frame = context.getImageData(0, 0, canvas.width, canvas.height);
      const found = jsQR(frame.data, frame.width, frame.height, { inversionAttempts: "dontInvert" });
      if (found && found.data) { submit(found.data.trim()); }
    }
    setTimeout(function () { requestAnimationFrame(look); }, 150);
  }

  start.addEventListener("click", function () {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      status.textContent = "This browser can't use a camera here (it needs HTTPS). Type the code instead.";
      return;
    }
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false })
      .then(function (stream) {
        video.srcObject = stream;
        video.hidden = false;
        start.hidden = true;
        status.textContent = "Camera on: hold a ticket's QR code in view.";
        return video.play().then(look);
      })
      .catch(function (err) {
        status.textContent = "No camera: " + err.message + ". Type the code instead.";
      });
  });

  // After each result, the code field is cleared and ready for the next.
  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.elt === form) {
      const input = form.querySelector("[name=code]");
      input.value = "";
      input.focus();
    }
  });
})();
