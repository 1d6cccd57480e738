B/*!40101 SET NAMES utf8mb4 */;
CREATE TABLE `e` (`id` int NOT NULL, `s` text, PRIMARY KEY (`id`));
INSERT INTO `e` VALUES (1,'q\'q'),(2,'b\\s'),(3,'n\0n'),(4,'z\Zz'),(5,'l\nl'),(6,'r\rr'),(7,'t\tt'),(8,'b\bb'),(9,'d\"d'),(10,'raw	tab'),(11,'dbl''q'),(12,'pct\%\_'),(13,'x\yz'),(14,"dq\"s");
