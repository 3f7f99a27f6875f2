-- A label given to a whole cluster of traces in one action (review by
-- cluster) names the cluster on each member's event; '' for a label given
-- to one trace.
ALTER TABLE label_events ADD COLUMN cluster text NOT NULL DEFAULT '';
