// The pages' only script: no build step. Three jobs: shrink a photo before it is sent,
// send taps on the review diagram, and show as many colour choices as there are players.
"use strict";

const csrfToken = () => document.querySelector('meta[name="csrf-token"]').content;

// A photo's long side is brought down to about `longSide` pixels on the phone, so that a
// 12 MP camera photo travels as a few hundred kilobytes. A photo the browser cannot decode
// (HEIC on most browsers) is sent as it is: the server reads it.
async function shrink(file, longSide) {
  const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  const scale = longSide / Math.max(bitmap.width, bitmap.height);
  if (scale >= 1) return file;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
  return blob ? new File([blob], "photo.jpg", { type: "image/jpeg" }) : file;
}

function setUpPhotoForms() {
  for (const input of document.querySelectorAll("input[type=file][data-shrink]")) {
    const form = input.form;
    form.classList.add("js");
    const status = form.querySelector(".status");
    input.addEventListener("change", async () => {
      const file = input.files[0];
      if (!file) return;
      if (status) status.textContent = "Reading the board…";
      let sent = file;
      try {
        sent = await shrink(file, Number(input.dataset.shrink));
      } catch (error) {
        sent = file;
      }
      if (sent !== file) {
        const list = new DataTransfer();
        list.items.add(sent);
        input.files = list.files;
      }
      form.submit();
    });
  }
}

function setUpReview() {
  const review = document.getElementById("review");
  if (!review) return;
  let busy = false;
  review.addEventListener("click", async (event) => {
    if (!event.target.closest("svg.board.editable")) return;
    const target = event.target.closest("[data-target]");
    if (!target || busy) return;
    busy = true;
    try {
      const response = await fetch(review.dataset.tapUrl, {
        method: "POST",
        headers: { "X-CSRF-Token": csrfToken(), "X-Requested-With": "fetch" },
        body: new URLSearchParams({ target: target.dataset.target }),
      });
      if (!response.ok) {
        window.location.reload(); // the page then shows what is saved, and any message
        return;
      }
      review.innerHTML = await response.text();
    } finally {
      busy = false;
    }
  });
}

function setUpNewGame() {
  const count = document.getElementById("count");
  if (!count) return;
  const show = () => {
    for (const label of document.querySelectorAll(".colour-choice")) {
      label.hidden = Number(label.dataset.seat) > Number(count.value);
    }
  };
  count.addEventListener("change", show);
  show();
}

document.addEventListener("DOMContentLoaded", () => {
  setUpPhotoForms();
  setUpReview();
  setUpNewGame();
});
