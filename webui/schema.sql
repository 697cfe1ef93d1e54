-- The web page's games: a SQLite file under the data folder (WAL mode), or a PostgreSQL database;
-- written in the SQL both speak (webui/db.py gives PostgreSQL its key types).
-- Photos live beside it in uploads/; rows name their files.

CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    host_token TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL,
    variant TEXT NOT NULL,
    players TEXT NOT NULL,            -- JSON list of colours, in turn order
    profile TEXT,                     -- calibration profile JSON; NULL for the reference kit
    final_position INTEGER,           -- positions.id the game ended on; NULL while it goes on
    ended TEXT,
    characters TEXT                   -- advanced game: JSON list of characters, in turn order; else NULL
);

CREATE TABLE IF NOT EXISTS seats (
    token TEXT PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    colour TEXT NOT NULL,
    UNIQUE (game_id, colour)
);

CREATE TABLE IF NOT EXISTS positions (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    number INTEGER NOT NULL,          -- 1, 2, ... within the game
    created TEXT NOT NULL,
    upload TEXT NOT NULL,             -- the photo as sent, under uploads/
    grid_photo TEXT NOT NULL,         -- the photo with the found grid drawn over it
    scan TEXT NOT NULL,               -- the scanner's JSON (confidences)
    position TEXT NOT NULL,           -- the position JSON, with the players' corrections
    touched TEXT NOT NULL DEFAULT '[]',  -- cells and slots a player corrected: no longer doubtful
    confirmed TEXT,                   -- when it joined the timeline; NULL for a draft
    deleted TEXT,                     -- when a player deleted the draft; NULL while it is kept
    digest TEXT NOT NULL DEFAULT '',  -- SHA-256 of the photo as sent: the same photo twice is one draft
    turn INTEGER NOT NULL DEFAULT 0,  -- quarter turns clockwise the diagram is drawn with, as in the photo
    outline TEXT NOT NULL DEFAULT '{}',  -- where each cell is in the grid photo, to highlight it there
    colours_seen TEXT NOT NULL DEFAULT '{}',  -- colours of the warriors seen in the photo: count
    history TEXT NOT NULL DEFAULT '{"undo": [], "redo": []}',  -- corrections to undo and to redo
    fixing TEXT,                      -- when a fix of a confirmed photo that shows an irregularity
                                      -- was opened; NULL when none is under way
    UNIQUE (game_id, number)
);

-- The irregularities of a game's record (engine/turns.py) its players kept rather than fixed: each
-- known by the photo that shows it, its kind and its cells, as long as the photos show it.
CREATE TABLE IF NOT EXISTS kept_irregularities (
    game_id INTEGER NOT NULL REFERENCES games (id),
    photo INTEGER NOT NULL,           -- positions.number of the photo that shows it
    kind TEXT NOT NULL,               -- 'warrior_moved', 'palisade_removed', ...
    cells TEXT NOT NULL,              -- its cells and palisades by name, space-separated ('c3 d3')
    created TEXT NOT NULL,
    PRIMARY KEY (game_id, photo, kind, cells)
);

-- A suggestion found for a player on a position with their hand: shown again, never searched twice.
CREATE TABLE IF NOT EXISTS suggestions (
    position_id INTEGER NOT NULL REFERENCES positions (id),
    colour TEXT NOT NULL,
    hand TEXT NOT NULL,               -- the player's own values it was searched with, as JSON
    document TEXT NOT NULL,           -- the search's JSON
    PRIMARY KEY (position_id, colour, hand)
);

-- The values of the warriors, each entered by its owner on their own link.
CREATE TABLE IF NOT EXISTS warrior_values (
    game_id INTEGER NOT NULL REFERENCES games (id),
    colour TEXT NOT NULL,
    cell TEXT NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (game_id, colour, cell)
);

-- Advanced game: the powers a player said they used on their own link, which leave nothing on the
-- board to photograph (a Mage's look, with the value the owner showed; an Orc's extra palisade).
-- A look's value is that player's alone: it is read for their own page and suggestions only.
CREATE TABLE IF NOT EXISTS power_uses (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    colour TEXT NOT NULL,
    power TEXT NOT NULL,              -- 'mage' or 'orc'
    position_id INTEGER NOT NULL REFERENCES positions (id),  -- the board it was used on
    cell TEXT,                        -- the warrior looked at (mage)
    owner TEXT,                       -- whose warrior it is (mage)
    value INTEGER,                    -- what the owner showed (mage)
    created TEXT NOT NULL
);

-- Work for the scanner, the calibration and the search, done in the request (embedded) or by
-- workers (scaled: the message on the queue names the row). A photo sent is one job until its
-- draft is stored; a setup photo until its profile is learnt; a player's question until its answer;
-- the review of a finished game until its turns are all reviewed (result: the review's JSON).
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY,
    game_id INTEGER REFERENCES games (id),  -- NULL for a setup photo (its game is made after), /api/scan
    kind TEXT NOT NULL,               -- 'scan' a photo into a draft, 'calibrate', 'suggest', 'api_scan', 'review'
    created TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',  -- queued, running, done, failed
    photo TEXT NOT NULL DEFAULT '',   -- the photo as sent, under uploads/: kept until its draft is
    argument TEXT NOT NULL DEFAULT '{}',   -- JSON: what else the job needs (players, a link)
    attempts INTEGER NOT NULL DEFAULT 0,   -- how many times a worker took it (more than 1: one died)
    worker TEXT NOT NULL DEFAULT '',  -- who took it last
    started TEXT,
    finished TEXT,
    number INTEGER,                   -- the draft it made
    result TEXT,                      -- what else it made (a profile's JSON)
    status INTEGER,                   -- a failure's HTTP status, and its sentence
    message TEXT,
    progress TEXT NOT NULL DEFAULT ''  -- how far a long job has come, as the page says it ("turn 3 of 60")
);

CREATE INDEX IF NOT EXISTS jobs_waiting ON jobs (state, id);
CREATE INDEX IF NOT EXISTS jobs_of_game ON jobs (game_id, id);

-- What every web process of a scaled server shares (the session key): none keeps its own.
CREATE TABLE IF NOT EXISTS settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
