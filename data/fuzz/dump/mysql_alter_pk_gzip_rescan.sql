a-- phpMyAdmin-style: the keys are added after the data.
/*!40101 SET NAMES utf8mb4 */;

CREATE TABLE `score` (
  `player` int(11) NOT NULL,
  `season` int(11) NOT NULL,
  `points` int(11) NOT NULL,
  `code` varchar(8) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

INSERT INTO `score` (`player`, `season`, `points`, `code`) VALUES
(1, 1, 100, 'a'),
(2, 1, 50, 'b');

ALTER TABLE `score`
  ADD PRIMARY KEY (`player`,`season`),
  ADD UNIQUE KEY `code` (`code`),
  ADD KEY `points` (`points`);

ALTER TABLE `score`
  MODIFY `points` int(11) NOT NULL DEFAULT 0;
COMMIT;
