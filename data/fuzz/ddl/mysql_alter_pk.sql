CREATE TABLE `score` (
  `player` int(11) NOT NULL,
  `season` int(11) NOT NULL,
  `points` int(11) NOT NULL,
  `code` varchar(8) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
ALTER TABLE `score`
  ADD PRIMARY KEY (`player`,`season`),
  ADD UNIQUE KEY `code` (`code`),
  ADD KEY `points` (`points`);
ALTER TABLE `score`
  MODIFY `points` int(11) NOT NULL DEFAULT 0;
INSERT INTO `score` (`player`, `season`, `points`, `code`) VALUES