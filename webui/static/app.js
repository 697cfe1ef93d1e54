// The pages' only script: no build step, no inline script (so a content security policy can
// forbid them). Its jobs: send a photo with a spinner, correct a draft with the palette (undo,
// redo, turn), highlight the tapped cell on the photo, enter values on the board, and keep
// every page up to date by polling the game's fingerprint.
"use strict";

const csrfToken = () => document.querySelector('meta[name="csrf-token"]').content;
const POLL_MS = 2500;
let busy = false; // a request of this page is under way: the poll waits
let tool = sessionStorage.getItem("armadora-tool") || "";
let picked = ""; // the last cell or line tapped, highlighted on the diagram and the photo

async function post(url, fields = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "X-CSRF-Token": csrfToken(), "X-Requested-With": "fetch" },
    body: fields instanceof FormData ? fields : new URLSearchParams(fields),
  });
}

async function errorOf(response) {
  try {
    const answer = await response.json();
    if (answer.error) return answer.error;
  } catch (error) {
    // not JSON: the generic sentence below
  }
  return "That did not work (the server answered " + response.status + "). Reload the page and try again.";
}

// ------------------------------------------------------------------ the photo

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

async function sendPhoto(input) {
  const form = input.form;
  const file = input.files[0];
  if (!file || form.classList.contains("sending")) return;
  const status = form.querySelector(".status-text");
  form.classList.add("sending");
  form.classList.remove("failed");
  input.disabled = true; // one photo, one draft: no second photo while this one is read
  busy = true;
  status.textContent = "Reading the board… this takes a few seconds.";
  let sent = file;
  try {
    sent = await shrink(file, Number(input.dataset.shrink));
  } catch (error) {
    sent = file;
  }
  const fields = new FormData();
  fields.append("photo", sent, sent.name || "photo.jpg");
  try {
    const response = await post(form.action, fields);
    if (response.ok) {
      window.location.assign((await response.json()).url);
      return;
    }
    status.textContent = await errorOf(response);
  } catch (error) {
    status.textContent = "The photo could not be sent: check the connection to the game and try again.";
  }
  form.classList.remove("sending");
  form.classList.add("failed");
  input.disabled = false;
  input.value = "";
  busy = false;
}

// ------------------------------------------------------------------ correcting a draft

function showTool() {
  for (const button of document.querySelectorAll("#palette .tool")) {
    button.setAttribute("aria-pressed", String(button.dataset.tool === tool));
  }
  const board = document.querySelector("#review svg.board");
  if (board) board.classList.toggle("lines", tool === "palisade");
}

function say(text) {
  const message = document.getElementById("tap-message");
  if (message) message.textContent = text;
}

// The cell or line last tapped, outlined on the diagram and on the photo.
function highlight() {
  for (const old of document.querySelectorAll("svg.board .picked")) old.classList.remove("picked");
  const figure = document.getElementById("photo");
  const spot = figure && figure.querySelector("svg.spot");
  if (!picked) return;
  const target = document.querySelector(`#review svg.board [data-target="${picked}"]`);
  if (target) target.classList.add("picked");
  const wall = document.querySelector(`#review svg.board line[data-slot="${picked}"]`);
  if (wall) wall.classList.add("picked");
  if (!spot) return;
  const cells = JSON.parse(figure.dataset.outline || "{}").cells || {};
  const polygon = spot.querySelector("polygon");
  const line = spot.querySelector("line");
  polygon.setAttribute("points", "");
  line.setAttribute("x1", 0);
  line.setAttribute("x2", 0);
  line.setAttribute("y1", 0);
  line.setAttribute("y2", 0);
  const slot = picked.match(/^([a-h][1-5])([|-])([a-h][1-5])$/);
  if (slot && cells[slot[1]]) {
    // The corners run clockwise from the cell's top-left: a line is its right or its bottom side.
    const corners = cells[slot[1]];
    const [a, b] = slot[2] === "|" ? [corners[1], corners[2]] : [corners[3], corners[2]];
    line.setAttribute("x1", a[0]);
    line.setAttribute("y1", a[1]);
    line.setAttribute("x2", b[0]);
    line.setAttribute("y2", b[1]);
  } else if (cells[picked]) {
    polygon.setAttribute("points", cells[picked].map((p) => p.join(",")).join(" "));
  }
}

// Changes go to the server one after the other, in the order tapped: a quick tap is never lost.
let changes = Promise.resolve();
let pending = 0;

function changeDraft(url, fields) {
  pending += 1;
  busy = true;
  changes = changes.then(() => sendChange(url, fields)).finally(() => {
    pending -= 1;
    busy = pending > 0;
  });
}

async function sendChange(url, fields) {
  const review = document.getElementById("review");
  try {
    const response = await post(url, fields);
    if (!response.ok) {
      say(await errorOf(response));
      return;
    }
    review.innerHTML = await response.text();
    say("");
    showTool();
    highlight();
  } catch (error) {
    say("The change could not be sent: check the connection to the game and try again.");
  }
}

function tapBoard(event) {
  const review = document.getElementById("review");
  const board = event.target.closest("svg.board.editable");
  if (!review || !board) return;
  const target = event.target.closest("[data-target]");
  if (!target) return;
  if (!tool) {
    say("First pick what to place: a palisade, empty, a colour or gold.");
    return;
  }
  picked = target.dataset.target;
  highlight();
  changeDraft(review.dataset.tapUrl, { target: picked, tool });
}

// ------------------------------------------------------------------ values on the board

function chooseValue(event) {
  const values = document.getElementById("values");
  const cell = event.target.closest("#current svg.board g.cell.own");
  if (!values || !cell) return;
  const chooser = document.getElementById("chooser");
  const offered = values.dataset.offered.split(",").filter(Boolean);
  const shown = cell.querySelector("text.value");
  const current = shown ? shown.textContent : "";
  chooser.dataset.cell = cell.dataset.target;
  chooser.querySelector(".chosen-cell").textContent = cell.dataset.target;
  for (const button of chooser.querySelectorAll(".value-choice")) {
    const value = button.dataset.value;
    button.hidden = !(offered.includes(value) || value === current);
    button.setAttribute("aria-pressed", String(value === current));
  }
  chooser.querySelector(".value-clear").hidden = !current;
  chooser.hidden = false;
  chooser.scrollIntoView({ block: "nearest" }); // in landscape the board fills the screen
  for (const old of document.querySelectorAll("#current svg.board .picked")) old.classList.remove("picked");
  cell.classList.add("picked");
}

async function enterValue(button) {
  const values = document.getElementById("values");
  const chooser = document.getElementById("chooser");
  if (busy) return;
  busy = true;
  let failed = "";
  try {
    const response = await post(values.dataset.valueUrl, { cell: chooser.dataset.cell, value: button.dataset.value });
    if (!response.ok) failed = await errorOf(response);
  } catch (error) {
    failed = "The value could not be sent: check the connection to the game and try again.";
  }
  busy = false;
  await refresh();
  if (failed) showError(failed);
}

function showError(text) {
  let alert = document.querySelector("main > .error");
  if (!alert) {
    alert = document.createElement("p");
    alert.className = "error";
    alert.setAttribute("role", "alert");
    document.getElementById("main").prepend(alert);
  }
  alert.textContent = text;
}

// ------------------------------------------------------------------ live updates

// The page as the server has it now, swapped in without a reload; what the player was doing
// (the tool picked, the cell highlighted, values shown) stays.
async function refresh() {
  const main = document.getElementById("main");
  const showing = document.getElementById("show-values");
  const shown = showing && showing.getAttribute("aria-pressed") === "true";
  const response = await fetch(window.location.href, { headers: { "X-Requested-With": "poll" } });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("main");
  if (!fresh) return;
  main.innerHTML = fresh.innerHTML;
  main.dataset.version = fresh.dataset.version || "";
  if (shown) toggleValues(true);
  showTool();
  highlight();
}

async function poll() {
  const main = document.getElementById("main");
  const enlarged = document.querySelector("figure.photo.big");
  if (!main.dataset.live || busy || enlarged || document.hidden) return;
  try {
    const response = await fetch(main.dataset.live);
    if (!response.ok) return;
    const { version } = await response.json();
    if (version !== main.dataset.version && !busy) await refresh();
  } catch (error) {
    // the server is away for a moment: the next poll tries again
  }
}

function toggleValues(on) {
  const button = document.getElementById("show-values");
  const board = document.querySelector("#current svg.board");
  if (!button || !board) return;
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Hide my values" : "Show my values";
  board.classList.toggle("show-values", on);
}

function enlarge(button) {
  const figure = document.getElementById("photo");
  const big = !figure.classList.contains("big");
  figure.classList.toggle("big", big);
  button.setAttribute("aria-expanded", String(big));
  button.textContent = big ? "Back to the diagram" : "Enlarge the photo";
}

// ------------------------------------------------------------------ wiring

// The new game shows a colour (and, in the advanced game, a character) for each player playing.
function setUpNewGame() {
  const count = document.getElementById("count");
  if (!count) return;
  const characters = document.getElementById("characters");
  const show = () => {
    for (const label of document.querySelectorAll(".colour-choice, .character-choice")) {
      label.hidden = Number(label.dataset.seat) > Number(count.value);
    }
    const variant = document.querySelector("input[name=variant]:checked");
    if (characters) characters.hidden = !variant || variant.value !== "armadora-advanced";
  };
  count.addEventListener("change", show);
  for (const radio of document.querySelectorAll("input[name=variant]")) radio.addEventListener("change", show);
  show();
}

document.addEventListener("DOMContentLoaded", () => {
  document.body.classList.add("js");
  setUpNewGame();
  showTool();
  document.addEventListener("change", (event) => {
    if (event.target.matches("input[type=file][data-shrink]")) sendPhoto(event.target);
  });
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (button && button.matches("#palette .tool")) {
      tool = button.dataset.tool;
      sessionStorage.setItem("armadora-tool", tool);
      say("");
      showTool();
    } else if (button && button.matches("#review button[data-post]")) {
      changeDraft(button.dataset.post, {});
    } else if (button && button.id === "enlarge") {
      enlarge(button);
    } else if (button && button.id === "show-values") {
      toggleValues(button.getAttribute("aria-pressed") !== "true");
    } else if (button && button.matches("#chooser button[data-value]")) {
      enterValue(button);
    } else if (!button) {
      tapBoard(event);
      chooseValue(event);
    }
  });
  window.setInterval(poll, POLL_MS);
});
