-- Run by a short-lived login that is a member of app. SET ROLE app first, so that what
-- it creates belongs to app and stays when the login is dropped.
SET ROLE app;
CREATE TABLE IF NOT EXISTS items (
  id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL
);
