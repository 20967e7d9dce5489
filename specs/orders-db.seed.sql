-- Schema and demo data for orders-db.mcp.kdl.
-- Deterministic: fixed timestamps, and on a fresh database the ids come out as
-- customers 1..5 and orders 1..20 in created_at order.

CREATE TABLE customers (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL,
    email       text UNIQUE NOT NULL,
    created_at  timestamptz DEFAULT now()
);

CREATE TABLE orders (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_id  bigint REFERENCES customers (id),
    status       text NOT NULL CHECK (status IN ('open', 'paid', 'cancelled')),
    total_cents  integer NOT NULL CHECK (total_cents >= 0),
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- Serves open-orders (customer, status, newest first) and orders-by-status.
CREATE INDEX orders_customer_status_created_idx ON orders (customer_id, status, created_at DESC);
CREATE INDEX orders_status_idx ON orders (status);

INSERT INTO customers (name, email, created_at) VALUES
    ('Ada Lovelace',     'ada@example.com',     '2024-01-05 09:00:00+00'),
    ('Grace Hopper',     'grace@example.com',   '2024-01-12 14:30:00+00'),
    ('Alan Turing',      'alan@example.com',    '2024-02-02 08:45:00+00'),
    ('Katherine Johnson','katherine@example.com','2024-02-20 16:10:00+00'),
    ('Edsger Dijkstra',  'edsger@example.com',  '2024-03-01 11:20:00+00');

INSERT INTO orders (customer_id, status, total_cents, created_at)
SELECT c.id, v.status, v.total_cents, v.created_at::timestamptz
FROM (VALUES
    ('ada@example.com',       'paid',      4200,  '2024-03-02 10:00:00+00'),
    ('grace@example.com',     'paid',      1599,  '2024-03-03 12:15:00+00'),
    ('ada@example.com',       'cancelled', 999,   '2024-03-05 09:30:00+00'),
    ('alan@example.com',      'paid',      25000, '2024-03-07 17:45:00+00'),
    ('katherine@example.com', 'paid',      7350,  '2024-03-09 08:05:00+00'),
    ('ada@example.com',       'paid',      12999, '2024-03-11 13:40:00+00'),
    ('edsger@example.com',    'cancelled', 500,   '2024-03-12 15:00:00+00'),
    ('grace@example.com',     'paid',      3100,  '2024-03-14 10:25:00+00'),
    ('alan@example.com',      'open',      8800,  '2024-03-16 19:10:00+00'),
    ('ada@example.com',       'open',      2750,  '2024-03-18 07:55:00+00'),
    ('katherine@example.com', 'cancelled', 1200,  '2024-03-19 12:00:00+00'),
    ('edsger@example.com',    'paid',      64000, '2024-03-21 09:45:00+00'),
    ('grace@example.com',     'open',      4999,  '2024-03-22 16:30:00+00'),
    ('ada@example.com',       'open',      18000, '2024-03-24 11:05:00+00'),
    ('alan@example.com',      'paid',      450,   '2024-03-25 14:20:00+00'),
    ('katherine@example.com', 'open',      9900,  '2024-03-26 10:10:00+00'),
    ('edsger@example.com',    'open',      3300,  '2024-03-27 18:35:00+00'),
    ('grace@example.com',     'cancelled', 7000,  '2024-03-28 08:50:00+00'),
    ('ada@example.com',       'open',      600,   '2024-03-29 13:15:00+00'),
    ('alan@example.com',      'open',      15500, '2024-03-30 09:00:00+00')
) AS v (email, status, total_cents, created_at)
JOIN customers c ON c.email = v.email
ORDER BY v.created_at;
