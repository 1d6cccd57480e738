CREATE TABLE `account` (
  `login` varchar(64) NOT NULL,
  `token` varbinary(32) DEFAULT NULL,
  PRIMARY KEY (`login`),
  UNIQUE KEY `token` (`token`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE `inventory` (
  `owner` bigint(20) NOT NULL,
  `slot` int(11) NOT NULL,
  `item_id` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`owner`,`slot`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE `item` (
  `id` bigint(20) NOT NULL,
  `owner_id` bigint(20) NOT NULL,
  `template` int(11) NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE `mail` (
  `id` bigint(20) NOT NULL,
  `to_player` bigint(20) NOT NULL,
  `subject` text NOT NULL,
  `body` blob DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE `player` (
  `id` bigint(20) NOT NULL,
  `name` varchar(64) NOT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `name` (`name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
INSERT INTO `account` VALUES;
INSERT INTO `inventory` VALUES