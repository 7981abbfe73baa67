-- Memory and entity vectors are kept as float16 (knotwork/store/sqlite/halves.py): half the bytes of
-- float32, with cosines that move by about 1e-4. The store still takes and gives float32; this converts
-- the vectors stored before. knotwork_half() is a function the migration runner registers. Going back
-- to float32 loses nothing more than this did: `knotwork reembed` recomputes every vector from the text.
UPDATE memory_vectors SET vector = knotwork_half(vector);
UPDATE entity_vectors SET vector = knotwork_half(vector);
