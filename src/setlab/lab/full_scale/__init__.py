"""What only ``make reference`` starts: the seeds' loads at full scale (seed 002's 8 × 10^8 IDs
into 2^17 keys, seed 003's 1.2 × 10^8 into RedisBloom), every peer tool on the same IDs, the
mass-insertion ceiling, the machine's limits, and the runs too heavy or too slow for a page (a
big key's housekeeping, cuckoo filters filled until they fail, phpredis's MULTI). A chapter reads
their stored records; a script in ``reference/`` runs them."""
